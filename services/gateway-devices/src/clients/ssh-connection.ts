import { connect as connectTcp } from 'node:net';
import type { Socket } from 'node:net';
import { AppError, HOST_KEY_CHECKING, knownHostsKey, knownHostsRoute } from '@nap/contracts';
import type { HostKeyChecking } from '@nap/contracts';
import type * as Ssh2 from 'ssh2';
import type { Client, ConnectConfig, VerifyCallback } from 'ssh2';
import { onFirstUse } from '@nap/util';
import { hostKeyFingerprint } from '../domain/known-hosts';
import type { KnownHostsStore } from '../store/known-hosts-repository';

// SSH loads with the first connection to a device (onFirstUse), not at every start
// eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
const ssh2 = onFirstUse(() => require('ssh2') as typeof Ssh2);

/** Where and how to open an SSH connection to a device. */
export interface SshTarget {
  /** Inventory name, used in messages; defaults to the address. */
  deviceName?: string;
  /** Address or DNS name. */
  host: string;
  /** TCP port; defaults to 22. */
  port?: number;
  username: string;
  /** Never logged, never put in a message. */
  password?: string;
  /** OpenSSH or PEM private key for public-key login. */
  privateKey?: string | Buffer;
  passphrase?: string;
  /**
   * Bound of the whole login: TCP connect, SSH handshake, host-key check and authentication.
   * Defaults to {@link DEFAULT_READY_TIMEOUT_MS}.
   */
  readyTimeoutMs?: number;
  /** SSH keepalive interval once logged in; defaults to {@link DEFAULT_KEEPALIVE_INTERVAL_MS}. */
  keepaliveIntervalMs?: number;
  /** Unanswered keepalives before the connection is dropped; defaults to 3. */
  keepaliveCountMax?: number;
  /** Defaults to `tofu`. */
  hostKeyChecking?: HostKeyChecking;
  /** Required unless `hostKeyChecking` is `off`. */
  knownHosts?: KnownHostsStore;
}

/** An authenticated SSH connection. */
export interface SshConnection {
  readonly client: Client;
  /** Fingerprint of the key the device presented (`SHA256:…`). */
  readonly hostKeyFingerprint: string;
  /** `device "core-1" (10.0.0.1:22)`, for messages. */
  readonly label: string;
  /** True once the connection has closed, for whatever reason. */
  isClosed(): boolean;
  /**
   * Ends the connection and resolves once the socket has closed (bounded by {@link CLOSE_WAIT_MS},
   * then the socket is destroyed), so a caller that releases a session slot afterwards knows the
   * device has seen the session end. Idempotent.
   */
  close(): Promise<void>;
}

/** How long {@link SshConnection.close} waits for the device to close its side before cutting the socket. */
export const CLOSE_WAIT_MS = 2_000;

/** netmiko's `conn_timeout` (10 s) covers the TCP connect; here the same bound covers the whole login. */
export const DEFAULT_READY_TIMEOUT_MS = 10_000;
/** Keeps NAT and firewall state alive on long-running sessions. */
export const DEFAULT_KEEPALIVE_INTERVAL_MS = 10_000;

/** `device "core-1" (10.0.0.1:22)` or `device 10.0.0.1:22` when the device has no inventory name. */
export function describeTarget(target: Pick<SshTarget, 'deviceName' | 'host' | 'port'>): string {
  const address = knownHostsKey(target.host, target.port ?? 22);
  return target.deviceName === undefined || target.deviceName === '' ? `device ${address}` : `device "${target.deviceName}" (${address})`;
}

/**
 * Rejects with `onTimeout()` when `promise` has not settled within `timeoutMs`. For steps ssh2 leaves
 * unbounded (opening a channel), so a device that stops answering costs at most its timeout.
 */
export function boundedBy<T>(promise: Promise<T>, timeoutMs: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(onTimeout()), Math.max(0, timeoutMs));
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

interface NodeSystemError extends Error {
  code?: string | number;
  level?: string;
}

function errnoOf(err: unknown): string | undefined {
  const code = (err as NodeSystemError | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Connects TCP first so "nobody answers" (unreachable) and "answers but stalls" (timeout) stay distinct. */
function connectSocket(target: SshTarget, label: string, timeoutMs: number): Promise<Socket> {
  const port = target.port ?? 22;
  return new Promise((resolve, reject) => {
    const socket = connectTcp({ host: target.host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new AppError('DEVICE_UNREACHABLE', `${label} did not accept a TCP connection within ${timeoutMs} ms (user "${target.username}")`, {
          details: { host: target.host, port, timeoutMs },
        }),
      );
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      socket.setNoDelay(true);
      resolve(socket);
    });
    socket.once('error', (err) => {
      clearTimeout(timer);
      socket.destroy();
      const errno = errnoOf(err);
      const why =
        errno === 'ECONNREFUSED'
          ? `refused the connection on port ${port}`
          : errno === 'ENOTFOUND' || errno === 'EAI_AGAIN'
            ? `has an address that does not resolve ("${target.host}")`
            : errno === 'EHOSTUNREACH' || errno === 'ENETUNREACH'
              ? 'cannot be reached (no route to host)'
              : `cannot be reached (${errno ?? err.message})`;
      reject(
        new AppError('DEVICE_UNREACHABLE', `${label} ${why} (user "${target.username}")`, {
          cause: err,
          details: { host: target.host, port, errno },
        }),
      );
    });
  });
}

/** Why a presented host key was refused. */
export type HostKeyProblem =
  { kind: 'changed'; expected: string; actual: string } | { kind: 'unknown'; actual: string } | { kind: 'store'; error: unknown };

/**
 * Checks a presented host key against the known-hosts store under `checking` (tofu records a first
 * key, with its blob; strict refuses an unknown one; both refuse a changed one); `undefined` when the
 * key is trusted. Used by every SSH session and by the key scan before an Ansible run.
 */
export async function checkHostKey(
  knownHosts: KnownHostsStore,
  hostPort: string,
  key: Buffer,
  checking: HostKeyChecking,
): Promise<HostKeyProblem | undefined> {
  const presented = hostKeyFingerprint(key);
  try {
    const trusted = await knownHosts.get(hostPort);
    if (trusted === undefined) {
      if (checking === HOST_KEY_CHECKING.STRICT) return { kind: 'unknown', actual: presented };
      await knownHosts.set(hostPort, presented, key);
      return undefined;
    }
    if (trusted !== presented) return { kind: 'changed', expected: trusted, actual: presented };
    // trusted already: keep the blob too if only the fingerprint was known (entries made before keys were kept)
    if (knownHosts.keyOf !== undefined && (await knownHosts.keyOf(hostPort)) === undefined) await knownHosts.set(hostPort, presented, key);
    return undefined;
  } catch (error) {
    return { kind: 'store', error };
  }
}

/** Why a private key cannot log in over SSH: no passphrase for an encrypted key, a wrong one, or not a private key ssh2 reads. */
export type PrivateKeyProblem = 'passphrase-missing' | 'passphrase-wrong' | 'unusable';

/**
 * Checks `key` as an SSH login would use it (ssh2's own parser, which refuses it at connect time);
 * `undefined` when it can be used. Never puts the key or the passphrase in anything it answers.
 */
export function privateKeyProblem(key: string, passphrase: string | undefined): PrivateKeyProblem | undefined {
  let parsed: ReturnType<typeof Ssh2.utils.parseKey>;
  try {
    parsed = ssh2().utils.parseKey(key, passphrase);
  } catch {
    return 'unusable';
  }
  if (parsed instanceof Error) {
    if (/no passphrase given/i.test(parsed.message)) return 'passphrase-missing';
    if (/bad passphrase|decrypt/i.test(parsed.message)) return 'passphrase-wrong';
    return 'unusable';
  }
  const first = Array.isArray(parsed) ? (parsed as unknown[])[0] : parsed;
  return first !== undefined && (first as Ssh2.ParsedKey).isPrivateKey() ? undefined : 'unusable';
}

/**
 * The host key a server presents, read from the start of an SSH handshake that is then broken off
 * (no login is tried); `undefined` when the host does not answer within `timeoutMs`.
 */
export async function scanHostKey(host: string, port: number, timeoutMs: number): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const client = new (ssh2().Client)();
    let key: Buffer | undefined;
    const done = () => {
      client.end();
      resolve(key);
    };
    client.on('error', done);
    client.on('close', done);
    try {
      client.connect({
        host,
        port,
        username: 'nap-host-key-scan',
        readyTimeout: timeoutMs,
        hostVerifier: (presented: Buffer, verify: VerifyCallback) => {
          key = presented;
          verify(false);
        },
      });
    } catch {
      done();
    }
  });
}

/**
 * Opens an authenticated SSH connection with a bounded login (`readyTimeout`), keepalives and a host
 * key verifier, and translates every failure into an {@link AppError}:
 * - `DEVICE_UNREACHABLE`: refused, unresolvable, no route, no TCP answer, or dropped during the handshake;
 * - `DEVICE_TIMEOUT`: TCP accepted but the handshake and login did not finish in time;
 * - `DEVICE_SSH_AUTH_FAILED`: every authentication method was refused;
 * - `DEVICE_HOST_KEY_CHANGED`: the key differs from the trusted one;
 * - `DEVICE_HOST_KEY_UNKNOWN`: strict checking and no key is trusted.
 * Messages name the device and the user, never the password.
 */
export async function openSshConnection(target: SshTarget): Promise<SshConnection> {
  const label = describeTarget(target);
  const port = target.port ?? 22;
  const readyTimeoutMs = target.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
  const checking = target.hostKeyChecking ?? HOST_KEY_CHECKING.TOFU;
  const knownHosts = target.knownHosts;
  if (checking !== HOST_KEY_CHECKING.OFF && knownHosts === undefined) {
    throw new AppError('INTERNAL', `No known-hosts store was given for ${label} while host key checking is "${checking}"`);
  }
  const startedAt = Date.now();
  const socket = await connectSocket(target, label, readyTimeoutMs);
  const remainingMs = Math.max(1, readyTimeoutMs - (Date.now() - startedAt));
  const hostPort = knownHostsKey(target.host, port);
  let presented = '';
  let problem: HostKeyProblem | undefined;

  const hostVerifier = (key: Buffer, verify: VerifyCallback): void => {
    presented = hostKeyFingerprint(key);
    if (checking === HOST_KEY_CHECKING.OFF || knownHosts === undefined) {
      verify(true);
      return;
    }
    void checkHostKey(knownHosts, hostPort, key, checking).then((found) => {
      problem = found;
      verify(found === undefined);
    });
  };

  const client = new (ssh2().Client)();
  const config: ConnectConfig = {
    sock: socket,
    host: target.host,
    port,
    username: target.username,
    readyTimeout: remainingMs,
    keepaliveInterval: target.keepaliveIntervalMs ?? DEFAULT_KEEPALIVE_INTERVAL_MS,
    keepaliveCountMax: target.keepaliveCountMax ?? 3,
    hostVerifier,
    // Network OSes (Junos especially) often offer only keyboard-interactive for passwords.
    tryKeyboard: target.password !== undefined,
  };
  if (target.password !== undefined) config.password = target.password;
  if (target.privateKey !== undefined) config.privateKey = target.privateKey;
  if (target.passphrase !== undefined) config.passphrase = target.passphrase;

  let closed = false;
  const closedPromise = new Promise<void>((resolve) => client.once('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let settled = false;
    const fail = (err: AppError): void => {
      if (settled) return;
      settled = true;
      closed = true;
      client.end();
      socket.destroy();
      reject(err);
    };
    client.on('keyboard-interactive', (_name, _instructions, _lang, prompts, finish) => {
      finish(prompts.map(() => target.password ?? ''));
    });
    client.once('ready', () => {
      if (settled) return;
      settled = true;
      resolve();
    });
    client.on('error', (err: NodeSystemError) => {
      if (settled) return;
      fail(translateLoginError(err, { label, username: target.username, readyTimeoutMs, problem, hostPort }));
    });
    client.once('close', () => {
      closed = true;
      fail(new AppError('DEVICE_UNREACHABLE', `${label} closed the connection during the SSH login of user "${target.username}"`));
    });
    try {
      client.connect(config);
    } catch (err) {
      // ssh2 refuses a key it cannot read before it sends anything (the inventory checks keys before this)
      fail(
        new AppError(
          'DEVICE_CREDENTIALS_MISSING',
          `The private key for ${label} cannot be used for the SSH login of user "${target.username}"`,
          {
            cause: err,
          },
        ),
      );
    }
  });
  client.on('close', () => {
    closed = true;
  });
  return {
    client,
    hostKeyFingerprint: presented,
    label,
    isClosed: () => closed,
    close: async () => {
      if (!closed) {
        closed = true;
        client.end();
      }
      let timer: NodeJS.Timeout | undefined;
      const cut = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          socket.destroy();
          resolve();
        }, CLOSE_WAIT_MS);
      });
      await Promise.race([closedPromise, cut]);
      clearTimeout(timer);
    },
  };
}

interface LoginContext {
  label: string;
  username: string;
  readyTimeoutMs: number;
  problem: HostKeyProblem | undefined;
  hostPort: string;
}

// ssh2 DISCONNECT reasons that mean "your login was refused" (RFC 4253 §11.1).
const AUTH_DISCONNECT_REASONS = new Set([13, 14]);

function translateLoginError(err: NodeSystemError, ctx: LoginContext): AppError {
  const { label, username, problem } = ctx;
  if (problem?.kind === 'changed') {
    return new AppError(
      'DEVICE_HOST_KEY_CHANGED',
      `${label} presented host key ${problem.actual}, which differs from the trusted key ${problem.expected}; ` +
        `if the device was replaced, forget the old key (DELETE ${knownHostsRoute(ctx.hostPort)}) and connect again`,
      { cause: err, details: { hostPort: ctx.hostPort, expected: problem.expected, actual: problem.actual } },
    );
  }
  if (problem?.kind === 'unknown') {
    return new AppError(
      'DEVICE_HOST_KEY_UNKNOWN',
      `${label} presented host key ${problem.actual}, which is not trusted (strict host key checking and no known key); ` +
        `trust its key (PUT ${knownHostsRoute(ctx.hostPort)} with its fingerprint, once checked against the device) or connect once with trust on first use`,
      { cause: err, details: { hostPort: ctx.hostPort, expected: null, actual: problem.actual } },
    );
  }
  if (problem?.kind === 'store') {
    return new AppError('INTERNAL', `The known-hosts store failed while checking the host key of ${label}`, { cause: problem.error });
  }
  if (err.level === 'client-authentication' || (typeof err.code === 'number' && AUTH_DISCONNECT_REASONS.has(err.code))) {
    return new AppError('DEVICE_SSH_AUTH_FAILED', `${label} refused the SSH login for user "${username}"`, {
      cause: err,
      details: { username },
    });
  }
  if (err.level === 'client-timeout') {
    return new AppError(
      'DEVICE_TIMEOUT',
      `${label} did not complete the SSH handshake and login of user "${username}" within ${ctx.readyTimeoutMs} ms`,
      {
        cause: err,
        details: { timeoutMs: ctx.readyTimeoutMs },
      },
    );
  }
  return new AppError('DEVICE_UNREACHABLE', `${label} failed the SSH handshake for user "${username}": ${err.message}`, { cause: err });
}
