// Sessions: tokens issued and ended, re-checks with the sign-in method, the signing key.
import type { Caller } from '@nap/contracts';
import { AppError, hasCode, signToken } from '@nap/contracts';
import type { SecretBox } from '@nap/runtime';
import { errorMessage } from '@nap/util';
import { randomUUID } from 'node:crypto';
import type { AdminContext } from '../context';
import type { IssuedToken, SessionOrigin } from '../domain/sessions';
import { newSession } from '../domain/sessions';
import type { ExternalIdentity } from '../domain/sign-in';
import { providerUnavailable, recheckDue } from '../domain/sign-in';
import type { SigningKey } from '../domain/signing-key';
import { newSigningKeyRecord, openSigningKey } from '../domain/signing-key';
import type { AccountRecord } from '../store/accounts';
import type { SessionRecord } from '../store/sessions';
import type { SigningKeyRepository } from '../store/signing-keys';
import { signedInAccount } from './sign-in';

/** How long past its expiry a session is kept before a login deletes it: longer than clocks of gateways and admin replicas differ. */
export const EXPIRED_SESSION_GRACE_MS = 10 * 60_000;

/**
 * The account of a session, checked again with its sign-in method when the method's re-check
 * interval has passed since the last check: groups brought up to date, or every session of the
 * account ended (401) when the method no longer knows the person, no longer exists, or cannot look
 * people up (RADIUS: its sessions last one interval). A method that does not answer leaves the
 * session as it was, to be checked at its next use.
 */
export async function recheckedAccount(
  svc: AdminContext,
  account: AccountRecord,
  session: SessionRecord,
  now: number,
  deadline: number,
): Promise<AccountRecord> {
  if (account.provenance === undefined) return account;
  const method = await svc.signIn.named(account.provenance);
  if (method === undefined) {
    await endSessionsOf(svc, account._id);
    throw new AppError(
      'UNAUTHENTICATED',
      `Sign-in method "${account.provenance}" of this account is no longer configured; the session has ended`,
    );
  }
  const checkedAt = session.checkedAt ?? Date.parse(session.created);
  if (!recheckDue(checkedAt, now, method.recheckMinutes)) return account;
  const renewal = session.renewal === undefined ? undefined : svc.secrets.open(session.renewal);
  if (method.recheck === undefined || (method.recheckNeedsRenewal === true && renewal === undefined)) {
    await endSession(svc, session._id);
    throw new AppError(
      'UNAUTHENTICATED',
      `Sign-in method "${method.name}" cannot confirm a person without their password, so its sessions last ${method.recheckMinutes} minutes; log in again`,
    );
  }
  let identity: ExternalIdentity | null;
  try {
    // the gateway waits for this answer: a method slower than the request leaves the session as it was
    identity = await beforeDeadline(
      method.recheck({ username: account.username, externalId: account.externalId, renewal }),
      deadline - 500,
      method.name,
    );
  } catch (err) {
    if (!hasCode(err, 'AUTH_PROVIDER_UNAVAILABLE')) throw err;
    svc.log.warn(
      { provider: method.name, username: account.username, err: (err as Error).message },
      'Session re-check postponed: the sign-in method is unavailable',
    );
    return account;
  }
  const updated = identity === null ? undefined : await signedInAccount(svc, method, { ...identity, username: account.username });
  if (updated === undefined) {
    await endSessionsOf(svc, account._id);
    throw new AppError('UNAUTHENTICATED', `Sign-in method "${method.name}" no longer knows "${account.username}"; the session has ended`);
  }
  // a provider that rotates refresh tokens sent a new one: the old one no longer works
  const renewed = identity?.renewal !== undefined && identity.renewal !== renewal ? svc.secrets.seal(identity.renewal) : undefined;
  await svc.sessions.checked(session._id, now, renewed);
  return updated;
}

/** `work`, or 503 `AUTH_PROVIDER_UNAVAILABLE` at `deadline` (epoch ms) when it has not settled by then. */
async function beforeDeadline<T>(work: Promise<T>, deadline: number, provider: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(providerUnavailable(provider, 'no answer before the request deadline')),
      Math.max(0, deadline - Date.now()),
    );
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Ends every live session of the account and tells the gateways. */
async function endSessionsOf(svc: AdminContext, accountId: string): Promise<void> {
  for (const session of await svc.sessions.liveOf(accountId)) await endSession(svc, session._id);
}

/**
 * Begins a session for the caller and signs its token; a session of an account of a sign-in method
 * is re-checked with it from now on, with `renewal` (an OIDC refresh token) when the method gave
 * one, kept sealed with the session.
 */
export async function issueToken(
  svc: AdminContext,
  caller: Caller,
  method: string,
  from: SessionOrigin,
  renewal?: string,
): Promise<IssuedToken> {
  const signing = await svc.signingKey();
  const sid = randomUUID();
  const now = Date.now();
  const ttlSeconds = svc.settings.tokenTtlSeconds;
  const provenance = (await svc.accounts.find(caller.id))?.provenance;
  const session = newSession(sid, caller, method, now, ttlSeconds, provenance, from);
  if (renewal !== undefined) session.renewal = svc.secrets.seal(renewal);
  // expired sessions go as logins go by (as expired login counts do); the grace leaves a gateway whose clock is behind its own word on them
  await svc.sessions.deleteExpired(now - EXPIRED_SESSION_GRACE_MS);
  await svc.sessions.insert(session);
  const token = signToken(
    { sid, sub: caller.id, iat: Math.floor(now / 1000), exp: Math.floor(session.expiresAt / 1000), kid: signing.kid },
    signing.key,
  );
  return { token, sid, expiresIn: ttlSeconds };
}

/** Revokes the session and tells the gateways; a refresh token kept with it goes back to its provider. */
export async function endSession(svc: AdminContext, sid: string): Promise<void> {
  const session = await svc.sessions.revoke(sid);
  if (!session) return;
  await svc.events.sessionRevoked({ sid, exp: Math.floor(session.expiresAt / 1000) });
  if (session.renewal !== undefined && !session.revoked) void revokeRenewal(svc, session.provenance, session.renewal);
}

/** The provider's revocation of a session's refresh token, in the background: the session has ended whatever the provider answers. */
async function revokeRenewal(svc: AdminContext, provenance: string | undefined, sealed: string): Promise<void> {
  try {
    const method = provenance === undefined ? undefined : await svc.signIn.named(provenance);
    await method?.revoke?.(svc.secrets.open(sealed));
  } catch (err) {
    svc.log.warn(
      { provider: provenance, err: errorMessage(err) },
      'The refresh token of an ended session could not be revoked at its provider',
    );
  }
}

/** The signing key loader: the stored key (generated when there is none), opened once and kept. */
export function signingKeyLoader(keys: SigningKeyRepository, secrets: SecretBox): () => Promise<SigningKey> {
  let opened: SigningKey | undefined;
  return async () => {
    if (opened) return opened;
    const record = (await keys.find()) ?? (await keys.keep(newSigningKeyRecord(secrets, new Date().toISOString())));
    if (!record) throw new AppError('INTERNAL', 'The token signing key could not be stored');
    opened = openSigningKey(record, secrets);
    return opened;
  };
}
