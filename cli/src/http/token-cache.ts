import { createHash } from 'node:crypto';
import { chmodSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Profile } from '../config/profiles';
import { makeFolder } from '../files';

/**
 * Tokens from logins, kept between runs in one file that only its owner can read (0600, in a 0700
 * folder). An entry is keyed by a hash of the platform, the principal and its secret, so that a
 * changed password logs in again; the secret itself is never written. A token is used until it
 * expires (the `exp` of the platform's token, or `expires_in` of OAuth) or the platform answers 401.
 */
export interface TokenCache {
  get(profile: Profile): string | undefined;
  set(profile: Profile, token: string, expiresAtMs: number | undefined): void;
  delete(profile: Profile): void;
}

interface Entry {
  token: string;
  /** Epoch ms; absent when unknown. */
  expiresAt?: number;
}

/** A minute of slack, so that a token does not expire between the check and the call. */
const SLACK_MS = 60_000;

export function tokenCacheFile(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME !== undefined && env.XDG_CACHE_HOME !== '' ? env.XDG_CACHE_HOME : path.join(os.homedir(), '.cache');
  return path.join(base, 'nap', 'tokens.json');
}

function keyOf(profile: Profile): string | undefined {
  const who =
    profile.clientId !== undefined
      ? `client\0${profile.clientId}\0${profile.clientSecret ?? ''}`
      : profile.username !== undefined
        ? `user\0${profile.username}\0${profile.password ?? ''}`
        : undefined;
  if (who === undefined) return undefined;
  return createHash('sha256').update(`nap-token-cache\0${profile.baseUrl}\0${who}`).digest('hex');
}

/** The expiry a NAP token carries (`nap1.<base64url claims>.<signature>`, claim `exp` in seconds). */
function expiryOf(token: string): number | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[1] === undefined) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof claims.exp === 'number' ? claims.exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

export function createTokenCache(file: string = tokenCacheFile(), now: () => number = Date.now): TokenCache {
  const read = (): Record<string, Entry> => {
    try {
      const data = JSON.parse(readFileSync(file, 'utf8')) as unknown;
      return typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Record<string, Entry>) : {};
    } catch {
      return {};
    }
  };
  const write = (entries: Record<string, Entry>): void => {
    try {
      makeFolder(path.dirname(file), 0o700);
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, `${JSON.stringify(entries)}\n`, { mode: 0o600 });
      chmodSync(tmp, 0o600);
      renameSync(tmp, file);
    } catch {
      // a cache that cannot be written only costs a login next time
    }
  };
  return {
    get(profile) {
      const key = keyOf(profile);
      if (key === undefined) return undefined;
      const entry = read()[key];
      if (entry === undefined || typeof entry.token !== 'string') return undefined;
      if (entry.expiresAt !== undefined && entry.expiresAt - SLACK_MS <= now()) return undefined;
      return entry.token;
    },
    set(profile, token, expiresAtMs) {
      const key = keyOf(profile);
      if (key === undefined) return;
      const entries = read();
      for (const [k, e] of Object.entries(entries)) if (e.expiresAt !== undefined && e.expiresAt <= now()) delete entries[k];
      const expiresAt = expiresAtMs ?? expiryOf(token);
      entries[key] = expiresAt === undefined ? { token } : { token, expiresAt };
      write(entries);
    },
    delete(profile) {
      const key = keyOf(profile);
      if (key === undefined) return;
      const entries = read();
      if (!(key in entries)) return;
      delete entries[key];
      write(entries);
    },
  };
}
