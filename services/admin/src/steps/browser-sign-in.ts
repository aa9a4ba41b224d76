// Browser sign-in (OIDC, SAML): the methods offered, a sign-in begun and finished.
import { randomUUID } from 'node:crypto';
import { AppError, hasCode } from '@nap/contracts';
import type { Caller } from '@nap/contracts';
import type { AdminContext } from '../context';
import { attemptId, secondsToWait, withFailure } from '../domain/login-throttle';
import { BROWSER_SIGN_IN_TTL_MS, safeReturnPath } from '../domain/sign-in';
import type { BrowserMethod, ExternalIdentity } from '../domain/sign-in';
import { invalidMember } from '../domain/validation-error';
import { callerOfAccount } from './accounts';
import type { LoginAttempt } from './sign-in';
import { noteSignIn, signedInAccount, throttledLogin } from './sign-in';

/** The enabled browser methods of the active profile, in the order it writes them. */
export async function browserMethods(svc: AdminContext): Promise<BrowserMethod[]> {
  return (await svc.signIn.all()).filter((m): m is BrowserMethod => m.kind === 'browser');
}

/**
 * The browser method a request names (`provider`), or the only one of that type when it names
 * none; 400 naming `member` when there is no such method or several to choose from.
 */
export async function browserMethodNamed(
  svc: AdminContext,
  provider: string | undefined,
  member: string,
  type?: string,
): Promise<BrowserMethod> {
  const methods = (await browserMethods(svc)).filter((m) => type === undefined || m.type === type);
  const method = provider === undefined ? (methods.length === 1 ? methods[0] : undefined) : methods.find((m) => m.name === provider);
  if (method !== undefined) return method;
  const names = methods.map((m) => m.name).join(', ') || 'none is enabled';
  // a provider the profile has but that could not be built (NAP_PUBLIC_URL unset): say why, not only that it is not enabled
  const why = provider === undefined ? undefined : await svc.signIn.leftOut(provider);
  throw invalidMember(
    member,
    provider === undefined
      ? `is missing: name the ${type ?? 'browser'} sign-in method (${names})`
      : why !== undefined
        ? `is "${provider}", which the active profile has but which signs nobody in: ${why}`
        : `is "${provider}", which is not an enabled ${type ?? 'browser'} sign-in method (${names})`,
  );
}

/**
 * Begins a browser sign-in (`GET /sso/login`): the method's request to its identity provider, with
 * what it must find again at the callback kept under the state (sealed, for 10 minutes, taken
 * once). 400 when `returnTo` is not a path of this platform.
 */
export async function beginBrowserSignIn(
  svc: AdminContext,
  provider: string | undefined,
  returnTo: string | undefined,
): Promise<{ redirectUrl: string; state: string }> {
  const back = safeReturnPath(returnTo);
  if (back === undefined) throw invalidMember('query.returnTo', `is "${returnTo}"; it must be a path of this platform such as /console/`);
  const method = await browserMethodNamed(svc, provider, 'query.provider');
  const begun = await method.start();
  const now = Date.now();
  await svc.browserSignIns.begin(
    {
      _id: begun.state,
      provider: method.name,
      pending: svc.secrets.seal(JSON.stringify(begun.pending)),
      returnTo: back,
      expiresAt: now + BROWSER_SIGN_IN_TTL_MS,
    },
    now,
  );
  return { redirectUrl: begun.redirectUrl, state: begun.state };
}

/**
 * Finishes a browser sign-in at its callback (`GET /sso/callback` for `oidc`, `POST /sso/saml/acs`
 * for `saml`): the sign-in under way taken (once: a replayed state finds nothing), the method's
 * checks, then the account and its groups as for every method. The caller and where the browser
 * goes; 401 `UNAUTHENTICATED` naming what failed.
 */
export async function finishBrowserSignIn(
  svc: AdminContext,
  state: string | undefined,
  callback: { query: Record<string, string>; form: Record<string, string> },
  type: 'oidc' | 'saml',
  attempt: LoginAttempt,
): Promise<BrowserSignInOutcome> {
  // the password was the identity provider's to check (and throttle); an address that keeps bringing
  // callbacks NAP refuses is counted, and waits, as for /login
  const addressCount = attempt.address === undefined ? undefined : attemptId('address', attempt.address);
  if (addressCount !== undefined) {
    const wait = secondsToWait(await svc.loginAttempts.find(addressCount), svc.now());
    if (wait > 0) throw throttledLogin('(browser sign-in)', attempt, { scope: 'address', retryAfterSeconds: wait });
  }
  try {
    const outcome = await browserSignInOutcome(svc, state, callback, type);
    attempt.count('ok');
    return outcome;
  } catch (err) {
    if (hasCode(err, 'UNAUTHENTICATED')) attempt.count('wrong');
    if (addressCount !== undefined && hasCode(err, 'UNAUTHENTICATED')) {
      const now = svc.now();
      const rules = svc.settings.loginThrottle;
      await svc.loginAttempts.change(addressCount, (current) => withFailure(current, addressCount, 'address', randomUUID(), now, rules));
    }
    throw err;
  }
}

/** A browser sign-in that held: who signed in, where the browser goes, and what re-checks their session (OIDC's refresh token). */
export interface BrowserSignInOutcome {
  caller: Caller;
  returnTo: string;
  renewal?: string;
}

async function browserSignInOutcome(
  svc: AdminContext,
  state: string | undefined,
  callback: { query: Record<string, string>; form: Record<string, string> },
  type: 'oidc' | 'saml',
): Promise<BrowserSignInOutcome> {
  if (state === undefined || state === '')
    throw new AppError('UNAUTHENTICATED', 'The identity provider sent no state: only a sign-in begun at GET /sso/login is finished here');
  const record = await svc.browserSignIns.take(state, Date.now());
  if (record === null)
    throw new AppError(
      'UNAUTHENTICATED',
      'This sign-in is unknown, finished already or older than 10 minutes (a replayed or forged state); sign in again',
    );
  const method = await svc.signIn.named(record.provider);
  if (method === undefined || method.kind !== 'browser' || method.type !== type)
    throw new AppError('UNAUTHENTICATED', `Sign-in method "${record.provider}" is no longer an enabled ${type} method; sign in again`);
  const pending = JSON.parse(svc.secrets.open(record.pending)) as Record<string, string>;
  let identity: ExternalIdentity;
  try {
    identity = await method.finish(callback, pending, {
      state,
      firstUse: (id, expiresAt) => svc.browserSignIns.firstUse(method.name, id, expiresAt, Date.now()),
    });
  } catch (err) {
    if (hasCode(err, 'UNAUTHENTICATED')) svc.log.info({ provider: method.name, err: (err as Error).message }, 'Browser sign-in refused');
    throw err;
  }
  const account = await signedInAccount(svc, method, identity);
  if (account === undefined)
    throw new AppError(
      'UNAUTHENTICATED',
      `Sign-in with "${method.name}" refused: the username "${identity.username}" belongs to a local account or to another sign-in method`,
    );
  if (account.inactive) throw new AppError('UNAUTHENTICATED', `Account "${account.username}" is inactive`);
  await noteSignIn(svc, account);
  return {
    caller: await callerOfAccount(svc, account),
    returnTo: record.returnTo,
    ...(identity.renewal !== undefined ? { renewal: identity.renewal } : {}),
  };
}
