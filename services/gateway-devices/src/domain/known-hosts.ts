import { createHash } from 'node:crypto';

/**
 * How a presented host key is checked:
 * - `tofu` (default): trust on first use, then refuse a different key (`DEVICE_HOST_KEY_CHANGED`);
 * - `strict`: refuse any key not already in the store;
 * - `off`: accept any key and record nothing (inventory `host_key_checking: false`).
 */
export const HOST_KEY_CHECKING = { TOFU: 'tofu', STRICT: 'strict', OFF: 'off' } as const;
/** See {@link HOST_KEY_CHECKING}. */
export type HostKeyChecking = (typeof HOST_KEY_CHECKING)[keyof typeof HOST_KEY_CHECKING];

/**
 * The OpenSSH-style fingerprint of a host key blob (the wire encoding of the public key, as ssh2 hands
 * it to a host verifier and as the base64 field of a `.pub` file holds it): `SHA256:` followed by the
 * unpadded base64 of its SHA-256, exactly what `ssh-keygen -lf` prints.
 */
export function hostKeyFingerprint(keyBlob: Buffer): string {
  return `SHA256:${createHash('sha256').update(keyBlob).digest('base64').replace(/=+$/, '')}`;
}

/** The key type named inside a host key blob (`ssh-ed25519`, `ecdsa-sha2-nistp256`, `ssh-rsa`). */
export function hostKeyType(keyBlob: Buffer): string {
  const length = keyBlob.length >= 4 ? keyBlob.readUInt32BE(0) : 0;
  return keyBlob.toString('latin1', 4, 4 + length);
}

/** One OpenSSH known_hosts line for `host:port` trusting `keyBlob`. */
export function knownHostsLine(host: string, port: number, keyBlob: Buffer): string {
  const pattern = port === 22 ? host : `[${host}]:${port}`;
  return `${pattern} ${hostKeyType(keyBlob)} ${keyBlob.toString('base64')}`;
}

/** The key under which a host key is stored: `host:port`, brackets around IPv6 addresses. */
export function knownHostsKey(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * The route of an endpoint's trusted key (`/gw/knownHosts/:hostPort`), as people type it: the
 * colon before the port kept, an IPv6 address's brackets and colons encoded.
 */
export function knownHostsRoute(hostPort: string): string {
  const port = hostPort.lastIndexOf(':');
  return `/gw/knownHosts/${encodeURIComponent(hostPort.slice(0, port))}${hostPort.slice(port)}`;
}
