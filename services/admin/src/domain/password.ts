import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import type { BinaryLike, ScryptOptions } from 'node:crypto';

/**
 * scrypt's cost (N, a power of 2) of the hashes the service makes: 2^14, about 50 ms of CPU a hash.
 * Only tests pass another (`AdminServiceOptions.scryptCost`); a hash records its own cost, so it
 * verifies whatever the cost of the service checking it.
 */
export const DEFAULT_SCRYPT_COST = 16_384;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;

function scryptAsync(password: BinaryLike, salt: BinaryLike, keylen: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** Hashes a password with scrypt at `cost` (N): `scrypt$N$r$p$salt$hash` (base64url). */
export async function hashPassword(password: string, cost: number = DEFAULT_SCRYPT_COST): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, KEY_LENGTH, { N: cost, r: R, p: P });
  return ['scrypt', cost, R, P, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** A hash at `cost` that no password matches: checked for an unknown username, so that its answer takes as long as a known one's. */
export function unknownAccountHash(cost: number = DEFAULT_SCRYPT_COST): string {
  return ['scrypt', cost, R, P, 'A'.repeat(22), 'A'.repeat(43)].join('$');
}

/** Constant-time check of a password against a stored hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await scryptAsync(password, Buffer.from(salt, 'base64url'), expected.length, { N: Number(n), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** A password for the first administrator when none is configured. */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}
