import { createHash } from 'node:crypto';
import { lstatSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Profile } from '../config/profiles';
import { makeFolder } from '../files';

/**
 * Tokens from logins, kept between runs in one file that only its owner can read (0600, in a 0700
 * folder). An entry is keyed by a hash of the platform, the principal and its secret, so that a
 * changed password logs in again; the secret itself is never written. A token is used until it
 * expires (the `exp` of the platform's token, or `expires_in` of OAuth) or the platform answers 401.
 * A cache folder that another user could change (XDG_CACHE_HOME shared, as `/tmp`: a folder or a
 * link there that is not the user's, or one others may write to) is not used: tokens are then
 * neither read from it nor written to it, and `warn` says so once.
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

/**
 * Why the cache folder `dir` must not be used, or undefined when it may (it is the user's, and only
 * the user may change it) or does not exist yet (it is made 0700). Both the folder and, when `dir`
 * is a symbolic link, the link itself must be the user's: another user could point their link elsewhere.
 */
export function unsafeCacheFolder(dir: string): string | undefined {
  const uid = process.getuid?.();
  let link;
  try {
    link = lstatSync(dir);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT'
      ? undefined
      : `${dir} cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`;
  }
  if (link.isSymbolicLink() && uid !== undefined && link.uid !== uid) return `${dir} is a symbolic link of another user (uid ${link.uid})`;
  let folder;
  try {
    folder = link.isSymbolicLink() ? statSync(dir) : link;
  } catch (err) {
    return `${dir} is a symbolic link that leads nowhere (${(err as NodeJS.ErrnoException).code ?? String(err)})`;
  }
  if (!folder.isDirectory()) return `${dir} is not a folder`;
  if (uid !== undefined && folder.uid !== uid) return `${dir} belongs to another user (uid ${folder.uid})`;
  if ((folder.mode & 0o022) !== 0) return `${dir} may be written by others (mode ${(folder.mode & 0o777).toString(8).padStart(4, '0')})`;
  return undefined;
}

export function createTokenCache(
  file: string = tokenCacheFile(),
  now: () => number = Date.now,
  warn: (message: string) => void = () => undefined,
): TokenCache {
  const dir = path.dirname(file);
  let warned = false;
  /** Whether the folder may be used now; says why not, once. */
  const usable = (): boolean => {
    const problem = unsafeCacheFolder(dir);
    if (problem === undefined) return true;
    if (!warned)
      warn(
        `the token cache is not used: ${problem}; nap logs in on every run. Make the folder yours with mode 0700, or set XDG_CACHE_HOME to a folder of your own`,
      );
    warned = true;
    return false;
  };
  const read = (): Record<string, Entry> => {
    if (!usable()) return {};
    try {
      const data = JSON.parse(readFileSync(file, 'utf8')) as unknown;
      return typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Record<string, Entry>) : {};
    } catch {
      return {};
    }
  };
  const write = (entries: Record<string, Entry>): void => {
    const tmp = `${file}.${process.pid}.tmp`;
    try {
      makeFolder(dir, 0o700);
      if (!usable()) return;
      // created here or not at all (`wx`): a file or link already there, left by anyone, is never written through
      rmSync(tmp, { force: true });
      writeFileSync(tmp, `${JSON.stringify(entries)}\n`, { mode: 0o600, flag: 'wx' });
      renameSync(tmp, file);
    } catch {
      // a cache that cannot be written only costs a login next time
      try {
        rmSync(tmp, { force: true });
      } catch {
        // nothing of it was made
      }
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
