import { createHash } from 'node:crypto';

/**
 * Where trusted SSH host keys are kept, keyed by `host:port`. The service backs it with its store so
 * every replica trusts the same keys; tests use {@link createMemoryKnownHostsStore}.
 */
export interface KnownHostsStore {
  /** The trusted fingerprint (`SHA256:<base64>`) of `hostPort`, or `undefined` when none is known. */
  get(hostPort: string): Promise<string | undefined>;
  /** Trusts `fingerprint` for `hostPort` from now on. */
  set(hostPort: string, fingerprint: string): Promise<void>;
}

/**
 * How a presented host key is checked:
 * - `tofu` (default): trust on first use, then refuse a different key (`DEVICE_HOST_KEY_CHANGED`);
 * - `strict`: refuse any key not already in the store;
 * - `off`: accept any key and record nothing (inventory `host_key_checking: false`).
 */
export const HOST_KEY_CHECKING = { TOFU: 'tofu', STRICT: 'strict', OFF: 'off' } as const;
/** See {@link HOST_KEY_CHECKING}. */
export type HostKeyChecking = (typeof HOST_KEY_CHECKING)[keyof typeof HOST_KEY_CHECKING];

/** A known-hosts store in memory, for tests and single-process tools. */
export function createMemoryKnownHostsStore(initial: Readonly<Record<string, string>> = {}): KnownHostsStore & {
  /** A copy of every entry. */
  entries(): Record<string, string>;
} {
  const keys = new Map<string, string>(Object.entries(initial));
  return {
    get: (hostPort) => Promise.resolve(keys.get(hostPort)),
    set: (hostPort, fingerprint) => {
      keys.set(hostPort, fingerprint);
      return Promise.resolve();
    },
    entries: () => Object.fromEntries(keys),
  };
}

/**
 * The OpenSSH-style fingerprint of a host key blob (the wire encoding of the public key, as ssh2 hands
 * it to a host verifier and as the base64 field of a `.pub` file holds it): `SHA256:` followed by the
 * unpadded base64 of its SHA-256, exactly what `ssh-keygen -lf` prints.
 */
export function hostKeyFingerprint(keyBlob: Buffer): string {
  return `SHA256:${createHash('sha256').update(keyBlob).digest('base64').replace(/=+$/, '')}`;
}

/** The key under which a host key is stored: `host:port`, brackets around IPv6 addresses. */
export function knownHostsKey(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
