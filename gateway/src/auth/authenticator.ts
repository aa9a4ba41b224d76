import { createHash } from 'node:crypto';
import { parse as parseCookie } from 'cookie';
import type { KeyObject } from 'node:crypto';
import {
  AppError,
  SYSTEM_CALLER,
  eventPattern,
  parseEventSubject,
  peekToken,
  publicKeyFromPem,
  verifyTokenSignature,
} from '@nap/contracts';
import type { Caller, TokenClaims } from '@nap/contracts';
import type { Bus, BusClient, Subscription } from '@nap/bus';
import type { Context, Logger } from '@nap/telemetry';

/** Credentials as a request presents them, and where (`via`: what the audit trail records). */
export type Credentials =
  | { kind: 'token'; token: string; via?: 'bearer' | 'query' | 'cookie' }
  | { kind: 'basic'; username: string; password: string; via?: 'basic' };

export interface AuthenticatorOptions {
  bus: Bus;
  client: BusClient;
  logger: Logger;
  /** How long a resolved session is trusted without asking the admin service again. Events revoke sooner. */
  sessionTtlMs?: number;
  /**
   * How long a Basic login that held is remembered (keyed by a hash of the credentials and the
   * address, never the password). A refused one is never remembered: each is a failed login the
   * admin service counts.
   */
  basicTtlMs?: number;
  /**
   * Most sessions, and most Basic credentials, remembered at once (10 000 each by default). Past it
   * the expired ones are let go, and the oldest tenth when that frees less than a tenth: each is asked of the admin
   * service again at its next use, where a gateway that kept every session it ever saw (a script
   * taking a token per run) would only grow.
   */
  maxCachedIdentities?: number;
}

/**
 * A change that may take access back, as {@link Authenticator.onChange} tells it: an event of a
 * session, an account or a group (by id), or `all` (events may have been missed: anything may have changed).
 */
export type AccessChange = { entity: 'session' | 'account' | 'group'; id: string } | { entity: 'all' };

/** Where credentials came from: Basic credentials are throttled per source address. */
export interface CredentialSource {
  address?: string;
  /** The trace context of the request the credentials came with: the parent of a call to the admin service. */
  trace?: Context;
}

interface CachedIdentity {
  caller: Caller | undefined;
  until: number;
  /** Reason shown when `caller` is undefined (revoked, deleted). */
  reason?: string;
}

const MAX_CACHED_TOKENS = 10_000;
/** Default of {@link AuthenticatorOptions.maxCachedIdentities}. */
const MAX_CACHED_IDENTITIES = 10_000;
/**
 * The admin service's entities whose events change what the gateway caches. Not every admin event:
 * each audit record is an event too, and a gateway would be sent one for each change it answered.
 */
const REVOKING_ENTITIES = ['session', 'account', 'group'] as const;

/**
 * Verifies credentials at the gateway. Tokens are checked locally (Ed25519 signature, expiry) and
 * their session resolved once per `sessionTtlMs` through the admin service; revocation and account
 * changes arrive as events and take effect at the next request. Basic credentials are checked by
 * the admin service as a login (throttled like one) and remembered briefly when they hold; an
 * account whose logins come to be throttled is forgotten at once (its `accountChanged` event).
 */
export class Authenticator {
  private readonly keys = new Map<string, KeyObject>();
  private readonly verifiedTokens = new Map<string, TokenClaims>();
  private readonly sessions = new Map<string, CachedIdentity>();
  private readonly basic = new Map<string, CachedIdentity>();
  private readonly inflight = new Map<string, Promise<CachedIdentity>>();
  /**
   * Counts the events that change what is cached (and reconnections): a resolution that began
   * before one may carry what the event took back, so it answers its own request but is not kept.
   */
  private generation = 0;
  private keysFetch: Promise<void> | undefined;
  /** Why the last key fetch failed, while it is the latest word on the keys. */
  private keysError: AppError | undefined;
  private lastKeysFetch = 0;
  private subscriptions: Subscription[] = [];
  private readonly changeListeners = new Set<(change: AccessChange) => void>();
  private readonly sessionTtlMs: number;
  private readonly basicTtlMs: number;
  private readonly maxCachedIdentities: number;

  constructor(private readonly options: AuthenticatorOptions) {
    this.sessionTtlMs = options.sessionTtlMs ?? 60_000;
    this.basicTtlMs = options.basicTtlMs ?? 10_000;
    this.maxCachedIdentities = options.maxCachedIdentities ?? MAX_CACHED_IDENTITIES;
  }

  /** Remembers `entry` under `key`, making room first when the map is full (see `maxCachedIdentities`). */
  private remember(map: Map<string, CachedIdentity>, key: string, entry: CachedIdentity): void {
    if (map.size >= this.maxCachedIdentities && !map.has(key)) {
      const now = Date.now();
      for (const [k, e] of map) if (e.until <= now) map.delete(k);
      // few expired (the sweep would run again at once): the oldest tenth goes (a Map keeps insertion order), each
      // asked of the admin service again at its next use, and the sweep runs again only after as many new ones
      if (map.size >= this.maxCachedIdentities * 0.9) {
        let drop = Math.max(1, Math.ceil(this.maxCachedIdentities / 10));
        for (const k of map.keys()) {
          if (drop-- <= 0) break;
          map.delete(k);
        }
      }
    }
    map.set(key, entry);
  }

  /** Subscribes to the admin service's revocation events. */
  async start(): Promise<void> {
    for (const entity of REVOKING_ENTITIES) {
      this.subscriptions.push(
        await this.options.bus.consumeEvents(eventPattern('admin', entity), (event) => this.onEvent(event.subject), { deliver: 'new' }),
      );
    }
    this.options.bus.onStatus((status) => {
      // events may have been missed while disconnected: trust nothing cached from before
      if (status === 'connected') this.clear();
    });
  }

  async stop(): Promise<void> {
    await Promise.all(this.subscriptions.splice(0).map((s) => s.unsubscribe()));
  }

  clear(): void {
    this.forgetAll();
    this.changed({ entity: 'all' });
  }

  private forgetAll(): void {
    this.generation++;
    this.inflight.clear();
    this.sessions.clear();
    this.basic.clear();
  }

  /**
   * Calls `listener` after each change that may take access back (a session ended, an account or
   * group changed, events missed while disconnected), saying what changed: what holds credentials
   * for long (an event stream) authenticates again those the change may concern. Answers the
   * function that stops the calls.
   */
  onChange(listener: (change: AccessChange) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  private changed(change: AccessChange): void {
    for (const listener of [...this.changeListeners]) listener(change);
  }

  /**
   * Resolves credentials to a caller; rejects with 401 `UNAUTHENTICATED` when they do not hold, 429
   * `LOGIN_THROTTLED` for Basic credentials whose username or address must wait.
   */
  async authenticate(credentials: Credentials, source: CredentialSource = {}): Promise<Caller> {
    return credentials.kind === 'token'
      ? this.fromToken(credentials.token, source.trace)
      : this.fromBasic(credentials.username, credentials.password, source);
  }

  private async fromToken(token: string, trace: Context | undefined): Promise<Caller> {
    let claims = this.verifiedTokens.get(token);
    if (!claims) {
      const peeked = peekToken(token);
      if (!peeked) throw unauthenticated('The token is malformed');
      const key = await this.key(peeked.kid);
      if (!key || !verifyTokenSignature(token, key)) throw unauthenticated('The token signature is not valid');
      claims = peeked;
      if (this.verifiedTokens.size >= MAX_CACHED_TOKENS) this.verifiedTokens.clear();
      this.verifiedTokens.set(token, claims);
    }
    if (claims.exp * 1000 <= Date.now()) throw unauthenticated('The token has expired; log in again');
    const identity = await this.cached(
      this.sessions,
      `s:${claims.sid}`,
      claims.sid,
      async () => {
        const { body } = await this.options.client.call(
          'admin.resolveSession',
          { body: { sid: claims.sid } },
          { caller: SYSTEM_CALLER, trace },
        );
        return body;
      },
      this.sessionTtlMs,
    );
    if (!identity.caller) throw unauthenticated(identity.reason ?? 'The session is no longer valid; log in again');
    return identity.caller;
  }

  private async fromBasic(username: string, password: string, { address, trace }: CredentialSource): Promise<Caller> {
    // refused at once, as POST /login refuses it: asked of the admin service, it would be a 400 naming a body the request never had
    if (password === '') throw unauthenticated(`The Basic credentials of "${username}" carry an empty password`);
    const key = createHash('sha256')
      .update(`${username}\u0000${password}\u0000${address ?? ''}`)
      .digest('base64');
    const identity = await this.cached(
      this.basic,
      `b:${key}`,
      key,
      async () => {
        const { body } = await this.options.client.call(
          'admin.authenticate',
          { body: { username, password } },
          { caller: SYSTEM_CALLER, ...(address === undefined ? {} : { clientAddress: address }), trace },
        );
        return body;
      },
      this.basicTtlMs,
      false,
    );
    if (!identity.caller) throw unauthenticated(identity.reason ?? `The username or password of "${username}" is wrong`);
    return identity.caller;
  }

  private async cached(
    map: Map<string, CachedIdentity>,
    flightKey: string,
    key: string,
    resolve: () => Promise<Caller>,
    ttlMs: number,
    rememberRefusals = true,
  ): Promise<CachedIdentity> {
    const hit = map.get(key);
    if (hit && hit.until > Date.now()) return hit;
    let pending = this.inflight.get(flightKey);
    if (!pending) {
      const began = this.generation;
      pending = (async () => {
        try {
          const caller = await resolve();
          const entry: CachedIdentity = { caller, until: Date.now() + ttlMs };
          // a revoking event arrived meanwhile: what was read may be what it took back
          if (this.generation === began) this.remember(map, key, entry);
          return entry;
        } catch (err) {
          if (rememberRefusals && err instanceof AppError && err.status === 401) {
            const entry: CachedIdentity = { caller: undefined, until: Date.now() + Math.min(ttlMs, 5_000), reason: err.message };
            if (this.generation === began) this.remember(map, key, entry);
            return entry;
          }
          throw err;
        } finally {
          // after an event the entry is a later resolution's (the event cleared this one's)
          if (this.generation === began) this.inflight.delete(flightKey);
        }
      })();
      this.inflight.set(flightKey, pending);
    }
    return pending;
  }

  private async key(kid: string): Promise<KeyObject | undefined> {
    const known = this.keys.get(kid);
    if (known) return known;
    // an unknown key id: ask the admin service, at most once a second
    if (!this.keysFetch && Date.now() - this.lastKeysFetch > 1_000) {
      this.lastKeysFetch = Date.now();
      this.keysFetch = this.options.client
        .call('admin.getTokenKeys', { body: {} }, { caller: SYSTEM_CALLER })
        .then(({ body }) => {
          this.keysError = undefined;
          for (const k of body.keys) this.keys.set(k.kid, publicKeyFromPem(k.publicKeyPem));
        })
        .catch((err: unknown) => {
          this.keysError =
            err instanceof AppError
              ? err
              : new AppError('SERVICE_UNAVAILABLE', 'The admin service did not hand out its token keys', { cause: err });
        })
        .finally(() => {
          this.keysFetch = undefined;
        });
    }
    if (this.keysFetch) await this.keysFetch;
    const key = this.keys.get(kid);
    // without the admin service's keys nothing can be said of the token: that is a 503, not a forged token
    if (!key && this.keysError) throw this.keysError;
    return key;
  }

  private onEvent(subject: string): void {
    const parts = parseEventSubject(subject);
    if (parts === undefined) return;
    const { entity, id } = parts;
    if (entity !== 'session' && entity !== 'account' && entity !== 'group') return;
    // a resolution under way may have read what this event changes: later requests resolve anew
    this.generation++;
    this.inflight.clear();
    if (entity === 'session') {
      this.remember(this.sessions, id, {
        caller: undefined,
        until: Date.now() + this.sessionTtlMs,
        reason: 'The session has ended; log in again',
      });
    } else if (entity === 'account') {
      for (const map of [this.sessions, this.basic]) {
        for (const [key, entry] of map) if (entry.caller?.id === id) map.delete(key);
      }
    } else {
      // a group's roles changed, or it was deleted: what its members may do, and their groups, changed
      this.forgetAll();
    }
    this.changed({ entity, id });
  }
}

function unauthenticated(message: string): AppError {
  return new AppError('UNAUTHENTICATED', message);
}

/** Finds credentials in a request: `Authorization: Bearer|Basic`, `?token=`, or the `token` cookie. */
export function readCredentials(
  headers: { authorization?: string | undefined; cookie?: string | undefined },
  queryToken: unknown,
): Credentials | undefined {
  const authorization = headers.authorization;
  if (authorization) {
    const space = authorization.indexOf(' ');
    const scheme = authorization.slice(0, space).toLowerCase();
    const value = authorization.slice(space + 1).trim();
    if (scheme === 'bearer' && unquoted(value)) return { kind: 'token', token: unquoted(value), via: 'bearer' };
    if (scheme === 'basic' && value) {
      const decoded = Buffer.from(value, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon > 0) return { kind: 'basic', username: decoded.slice(0, colon), password: decoded.slice(colon + 1), via: 'basic' };
    }
    throw unauthenticated('The Authorization header is neither "Bearer <token>" nor "Basic <credentials>"');
  }
  if (typeof queryToken === 'string' && unquoted(queryToken)) return { kind: 'token', token: unquoted(queryToken), via: 'query' };
  const cookie = headers.cookie ? parseCookie(headers.cookie).token : undefined;
  if (cookie && unquoted(cookie)) return { kind: 'token', token: unquoted(cookie), via: 'cookie' };
  return undefined;
}

/**
 * A token as sent, without the double quotes that clients which stored the JSON string of an older
 * /login answer put around it (`?token=%22nap1…%22`).
 */
function unquoted(token: string): string {
  return token.length >= 2 && token.startsWith('"') && token.endsWith('"') ? token.slice(1, -1) : token;
}
