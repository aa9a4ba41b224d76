import { createPublicKey, sign, verify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import type { TokenKeys } from './schemas/auth';

/**
 * The access token format, a contract between the admin service (which signs) and the gateway
 * (which verifies without a bus round trip): `nap1.<payload>.<signature>`, base64url, Ed25519.
 */
export interface TokenClaims {
  /** Session id; revoking the session revokes the token. */
  sid: string;
  /** Account id. */
  sub: string;
  /** Issued at, epoch seconds. */
  iat: number;
  /** Expires at, epoch seconds. */
  exp: number;
  /** Id of the signing key. */
  kid: string;
}

/** A public key as the admin service hands it to gateways: PEM (SPKI); its schema is `tokenKeysSchema`. */
export type TokenPublicKey = TokenKeys['keys'][number];

const PREFIX = 'nap1';

export function signToken(claims: TokenClaims, privateKey: KeyObject): string {
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  const signature = sign(null, Buffer.from(`${PREFIX}.${payload}`), privateKey).toString('base64url');
  return `${PREFIX}.${payload}.${signature}`;
}

/** Reads the claims without checking the signature (to find the key id); undefined when malformed. */
export function peekToken(token: string): TokenClaims | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== PREFIX || !parts[1]) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as Partial<TokenClaims>;
    if (
      typeof claims.sid !== 'string' ||
      typeof claims.sub !== 'string' ||
      typeof claims.exp !== 'number' ||
      typeof claims.iat !== 'number' ||
      typeof claims.kid !== 'string'
    )
      return undefined;
    return claims as TokenClaims;
  } catch {
    return undefined;
  }
}

/** True when the signature is the key's; expiry is checked by the caller. */
export function verifyTokenSignature(token: string, publicKey: KeyObject): boolean {
  const last = token.lastIndexOf('.');
  if (last < 0) return false;
  try {
    return verify(null, Buffer.from(token.slice(0, last)), publicKey, Buffer.from(token.slice(last + 1), 'base64url'));
  } catch {
    return false;
  }
}

export function publicKeyFromPem(pem: string): KeyObject {
  return createPublicKey(pem);
}
