import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { hasCode, peekToken } from '@nap/contracts';
import type { Caller, OperationDef } from '@nap/contracts';
import type { Logger } from '@nap/telemetry';
import type { AccessChange, Authenticator, Credentials } from './auth/authenticator';
import { authorize } from './authorize';

/** Keeps open streams to the access their callers had when they began (see {@link createStreamAccess}). */
export interface StreamAccess {
  /**
   * Follows the caller of an open stream: once its credentials are refused, or give it other roles,
   * groups or operations, or no longer the operation `op`, `end(res)` is called. Nothing when the
   * request carries no credentials. Stops following when `res` closes.
   */
  follow(op: OperationDef, req: IncomingMessage, credentials: Credentials | undefined, caller: Caller, res: ServerResponse): void;
  /** Credentials followed now (for tests and metrics): one per session token, or per Basic login and address. */
  readonly followed: number;
}

export interface StreamAccessOptions {
  authenticator: Authenticator;
  /** The address of a request: Basic credentials are checked as a login from it. */
  clientAddress: (req: IncomingMessage) => string;
  logger: Logger;
  /** Ends a stream without what was queued for it. */
  end(res: ServerResponse): void;
  /** How often the credentials of a token are authenticated again besides the changes the authenticator hears of, ms. */
  recheckMs: number;
  /**
   * The window over which the checks that one change starts are spread, ms: the first at once, the
   * others evenly after it, so that a change that reaches many callers (events missed while the bus
   * was away) does not ask the admin service for all of them at the same moment.
   */
  spreadMs: number;
}

/** One stream of followed credentials: what its caller was when it began, and the operation it serves. */
interface Stream {
  op: OperationDef;
  method: string | undefined;
  began: string;
  caller: Caller;
  res: ServerResponse;
}

/** Credentials some streams were opened with: checked once for all of them. */
interface Followed {
  key: string;
  credentials: Credentials;
  address: string | undefined;
  /** The session of a token (a session event names it). */
  sid: string | undefined;
  streams: Set<Stream>;
  interval: NodeJS.Timeout | undefined;
  /** A check is due (a change was heard): set until it starts. */
  due: NodeJS.Timeout | undefined;
  checking: boolean;
  /** A change was heard while a check ran: what that check read may predate it, so another follows. */
  again: boolean;
}

/**
 * Event streams follow their callers' access: the credentials a stream was opened with are
 * authenticated again at each change the authenticator hears of that can concern them (an event of
 * their session, of their account, of a group their caller is in; anything after the bus was
 * away) and, for a token, every `recheckMs`. Streams opened with the same credentials share one
 * check: one resolution answers all of them, however many they are, and a change heard while it
 * runs makes one more after it, not one per change. The checks one change starts are spread over
 * `spreadMs`. A check the admin service cannot answer (503) leaves the streams as they are, to be
 * checked at the next change or interval.
 */
export function createStreamAccess(options: StreamAccessOptions): StreamAccess {
  const { authenticator, logger } = options;
  const followed = new Map<string, Followed>();
  let stopListening: (() => void) | undefined;

  function keyOf(credentials: Credentials, address: string | undefined): string {
    const text =
      credentials.kind === 'token'
        ? `t\u0000${credentials.token}`
        : `b\u0000${credentials.username}\u0000${credentials.password}\u0000${address ?? ''}`;
    return createHash('sha256').update(text).digest('base64');
  }

  function concerns(entry: Followed, change: AccessChange): boolean {
    switch (change.entity) {
      case 'session':
        return entry.sid === change.id;
      case 'account':
        return [...entry.streams].some((s) => s.caller.id === change.id);
      case 'group':
        return [...entry.streams].some((s) => s.caller.groups.includes(change.id));
      default:
        return true;
    }
  }

  function heard(change: AccessChange): void {
    const concerned = [...followed.values()].filter((entry) => concerns(entry, change));
    concerned.forEach((entry, i) => schedule(entry, concerned.length > 1 ? Math.floor((i * options.spreadMs) / concerned.length) : 0));
  }

  function schedule(entry: Followed, delayMs: number): void {
    if (entry.checking) {
      entry.again = true;
      return;
    }
    if (entry.due !== undefined) return;
    entry.due = setTimeout(() => {
      entry.due = undefined;
      run(entry);
    }, delayMs);
    entry.due.unref();
  }

  function run(entry: Followed): void {
    if (entry.checking) {
      entry.again = true;
      return;
    }
    void check(entry).catch((err: unknown) => logger.warn({ err }, 'Checking the caller of an event stream failed'));
  }

  async function check(entry: Followed): Promise<void> {
    if (followed.get(entry.key) !== entry) return;
    entry.checking = true;
    let caller: Caller | undefined;
    let refused = false;
    try {
      caller = await authenticator.authenticate(entry.credentials, entry.address === undefined ? {} : { address: entry.address });
    } catch (err) {
      refused = hasCode(err, 'UNAUTHENTICATED') || hasCode(err, 'FORBIDDEN');
    } finally {
      entry.checking = false;
    }
    if (caller !== undefined || refused) {
      for (const stream of [...entry.streams]) {
        if (!refused && caller !== undefined && holds(stream, caller)) continue;
        logger.info({ caller: stream.caller.username, operation: stream.op.id }, "Ended an event stream whose caller's access changed");
        release(entry, stream);
        options.end(stream.res);
      }
    }
    if (entry.again && followed.get(entry.key) === entry) {
      entry.again = false;
      run(entry);
    }
  }

  function holds(stream: Stream, caller: Caller): boolean {
    if (callerKey(caller) !== stream.began) return false;
    try {
      authorize(stream.op, caller, stream.method);
      return true;
    } catch {
      return false;
    }
  }

  /** Stops following one stream (it closed, or was ended); the credentials too once none of their streams is left. */
  function release(entry: Followed, stream: Stream): void {
    entry.streams.delete(stream);
    if (entry.streams.size > 0 || followed.get(entry.key) !== entry) return;
    followed.delete(entry.key);
    if (entry.interval !== undefined) clearInterval(entry.interval);
    if (entry.due !== undefined) clearTimeout(entry.due);
    if (followed.size === 0) {
      stopListening?.();
      stopListening = undefined;
    }
  }

  return {
    follow(op, req, credentials, caller, res) {
      // a client gone before it is followed: its `close` has been emitted already, nothing would let it go
      if (credentials === undefined || res.writableEnded || res.destroyed) return;
      const address = credentials.kind === 'basic' ? options.clientAddress(req) : undefined;
      const key = keyOf(credentials, address);
      let entry = followed.get(key);
      if (entry === undefined) {
        entry = {
          key,
          credentials,
          address,
          sid: credentials.kind === 'token' ? peekToken(credentials.token)?.sid : undefined,
          streams: new Set(),
          interval: undefined,
          due: undefined,
          checking: false,
          again: false,
        };
        if (credentials.kind === 'token') {
          const tokenEntry = entry;
          entry.interval = setInterval(() => run(tokenEntry), options.recheckMs);
          entry.interval.unref();
        }
        followed.set(key, entry);
        stopListening ??= authenticator.onChange(heard);
      }
      const stream: Stream = { op, method: req.method, began: callerKey(caller), caller, res };
      entry.streams.add(stream);
      const held = entry;
      res.once('close', () => release(held, stream));
    },
    get followed() {
      return followed.size;
    },
  };
}

/** What of a caller decides what its stream shows: a change of any ends the stream. */
export function callerKey(caller: Caller): string {
  return JSON.stringify([caller.id, [...caller.roles].sort(), [...caller.groups].sort(), [...(caller.operations ?? [])].sort()]);
}
