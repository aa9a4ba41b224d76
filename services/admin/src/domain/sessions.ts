import { AppError } from '@nap/contracts';
import type { Caller } from '@nap/contracts';
import type { SessionRecord } from '../store/sessions';

/**
 * The gateway resolves a session at most once a minute (its session cache), so the admin service
 * sees use of a busy session only that often: the idle limit allows this much on top.
 */
export const SESSION_USE_GRANULARITY_MS = 60_000;

/** A token issued for a new session. */
export interface IssuedToken {
  token: string;
  sid: string;
  expiresIn: number;
}

/** A session that begins at `now` (epoch ms) and lasts `ttlSeconds`. */
export function newSession(sid: string, caller: Caller, method: string, now: number, ttlSeconds: number): SessionRecord {
  return {
    _id: sid,
    accountId: caller.id,
    username: caller.username,
    method,
    created: new Date(now).toISOString(),
    expiresAt: now + ttlSeconds * 1000,
    lastUsed: now,
    revoked: false,
  };
}

/** Why a session is no longer accepted at `now` (epoch ms): ended (revoked, expired, unknown), idle beyond the limit, or nothing. */
export function sessionEnd(session: SessionRecord | null, now: number, idleMinutes: number | undefined): 'ended' | 'idle' | undefined {
  if (!session || session.revoked || session.expiresAt <= now) return 'ended';
  const lastUsed = session.lastUsed ?? Date.parse(session.created);
  if (idleMinutes !== undefined && now - lastUsed > idleMinutes * 60_000 + SESSION_USE_GRANULARITY_MS) return 'idle';
  return undefined;
}

export function sessionEnded(): AppError {
  return new AppError('UNAUTHENTICATED', 'The session has ended; log in again');
}

export function sessionIdle(idleMinutes: number | undefined): AppError {
  return new AppError(
    'UNAUTHENTICATED',
    `The session was unused for more than ${idleMinutes} minutes (the active profile's authenticationProps.logoutTime); log in again`,
  );
}
