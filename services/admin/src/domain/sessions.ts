import { createHash } from 'node:crypto';
import { AppError } from '@nap/contracts';
import type { Caller, ResponseOf } from '@nap/contracts';
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

/** Where a session began: the request's source address and user agent, as the gateway saw them. */
export interface SessionOrigin {
  clientAddress: string | undefined;
  userAgent: string | undefined;
}

/** A session that begins at `now` (epoch ms) and lasts `ttlSeconds`; `provenance`: the sign-in method of the account, which confirmed it now. */
export function newSession(
  sid: string,
  caller: Caller,
  method: string,
  now: number,
  ttlSeconds: number,
  provenance: string | undefined,
  from: SessionOrigin,
): SessionRecord {
  return {
    _id: sid,
    accountId: caller.id,
    username: caller.username,
    method,
    ...(provenance !== undefined ? { provenance, checkedAt: now } : {}),
    ...(from.clientAddress !== undefined ? { address: from.clientAddress } : {}),
    ...(from.userAgent !== undefined ? { userAgent: from.userAgent } : {}),
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

/** A live session as an administrator sees it (`GET /user-management/accounts/:accountId/sessions`). */
export type SessionView = ResponseOf<'admin.getAccountSessions'>['results'][number];

/**
 * The reference of a session an administrator names it by: a digest of its id, which a token
 * carries (signed), so that a list of sessions gives nobody anything to present as one. Hex (96
 * bits), so that a reference never begins with `-` and reads as an option on a command line.
 */
export function sessionRef(sid: string): string {
  return createHash('sha256').update(`nap-session:${sid}`).digest('hex').slice(0, 24);
}

export function sessionView(session: SessionRecord): SessionView {
  return {
    id: sessionRef(session._id),
    method: session.method,
    ...(session.provenance !== undefined ? { provenance: session.provenance } : {}),
    created: session.created,
    lastUsed: new Date(session.lastUsed ?? Date.parse(session.created)).toISOString(),
    expires: new Date(session.expiresAt).toISOString(),
    ...(session.address !== undefined ? { address: session.address } : {}),
    ...(session.userAgent !== undefined ? { userAgent: session.userAgent } : {}),
  };
}

/** The sessions of an account still accepted at `now`, newest first. */
export function liveSessions(sessions: readonly SessionRecord[], now: number, idleMinutes: number | undefined): SessionRecord[] {
  return sessions.filter((s) => sessionEnd(s, now, idleMinutes) === undefined).sort((a, b) => b.created.localeCompare(a.created));
}

export function sessionNotFound(username: string, ref: string): AppError {
  return new AppError('SESSION_NOT_FOUND', `Account "${username}" has no live session "${ref}" (it ended, expired or never was)`);
}
