import { createHash } from 'node:crypto';

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

/**
 * Why the port of an SSH endpoint `host:port` (or `[address]:port`) cannot be one: it must be a whole
 * number from 1 to 65535 written without a leading zero (sessions look keys up as `host:22`, never
 * `host:022`). `undefined` when it is one.
 */
export function endpointPortProblem(hostPort: string): string | undefined {
  const port = hostPort.slice(hostPort.lastIndexOf(':') + 1);
  if (/^[1-9][0-9]{0,4}$/.test(port) && Number(port) <= 65535) return undefined;
  return `the port of ${hostPort} must be a whole number from 1 to 65535, without leading zeros`;
}
