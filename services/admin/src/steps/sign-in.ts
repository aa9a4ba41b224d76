// Sign-in with a password (local accounts and the password methods: LDAP, RADIUS) under login
// protection, and the accounts and groups a sign-in method brings in.
import { randomUUID } from 'node:crypto';
import type { HandlerContext } from '@nap/bus';
import { AppError, hasCode } from '@nap/contracts';
import type { Caller } from '@nap/contracts';
import type { Logger } from '@nap/telemetry';
import type { AdminContext } from '../context';
import type { LoginOutcome, LoginVia } from '../metrics';
import { externalAccountChanges, externalAccountRecord, newGroupRecord } from '../domain/accounts';
import {
  attemptCounts,
  countedAttempt,
  loginThrottled,
  longestWait,
  passwordProblem,
  secondsToWait,
  withFailure,
  withoutFailure,
} from '../domain/login-throttle';
import type { AttemptCounts, AttemptScope, CountedAttempt, Throttled } from '../domain/login-throttle';
import { unknownAccountHash, verifyPassword } from '../domain/password';
import { adminRoleChange, groupsAfterSignIn, newGroupName, sameGroupName } from '../domain/sign-in';
import type { ExternalIdentity, PasswordMethod, SignInMethod } from '../domain/sign-in';
import { invalidMember } from '../domain/validation-error';
import type { AccountRecord } from '../store/accounts';
import type { GroupRecord } from '../store/groups';
import { callerOfAccount } from './accounts';

/** How a login attempt came: what it is logged with and counted by. */
export interface LoginAttempt {
  via: LoginVia;
  /** The source address the gateway saw; undefined for calls between services (then only the username's count applies). */
  address: string | undefined;
  log: Logger;
  /** Counts how the attempt ended (`nap_logins_total`); called once per attempt. */
  count(outcome: LoginOutcome): void;
}

/** The attempt of a request, from its context: its route and the address the gateway passed on. */
export function loginAttempt(svc: Pick<AdminContext, 'countLogin'>, ctx: HandlerContext, via: LoginVia): LoginAttempt {
  return { via, address: ctx.clientAddress, log: ctx.log, count: (outcome) => svc.countLogin(via, outcome) };
}

/**
 * Checks a username and password; the caller they stand for, 401 when they do not hold, 429 while
 * throttled, 503 `AUTH_PROVIDER_UNAVAILABLE` when the directory that must decide does not answer.
 */
export async function checkCredentials(svc: AdminContext, username: string, password: string, attempt: LoginAttempt): Promise<Caller> {
  const outcome = await attemptLogin(svc, username, password, attempt);
  // the right password of an inactive account is answered as a wrong one (the log tells them apart):
  // an answer of its own would tell whoever guesses that the password is right, and that the account exists
  if (outcome === 'wrong' || outcome === 'inactive')
    throw new AppError('UNAUTHENTICATED', `The username or password of "${username}" is wrong`);
  return callerOfAccount(svc, outcome);
}

/**
 * Whom a username and password stand for. NAP's own accounts are checked first, against their
 * hash, whatever external methods are configured: the local `admin` (break-glass) and the service
 * accounts of automation sign in even when every directory is down. Any other username goes to the
 * external password methods of the active profile (the account's own method when it came from one,
 * every method in order otherwise); a method that accepts brings the account and its groups in or
 * up to date. An empty password is refused before anything is asked.
 */
export async function verifyCredentials(
  svc: AdminContext,
  username: string,
  password: string,
): Promise<AccountRecord | 'wrong' | 'inactive'> {
  if (password === '') return 'wrong';
  const account = await svc.accounts.findByUsername(username);
  if (account !== null && account.provenance === undefined) {
    if (!(await verifyPassword(password, account.passwordHash))) return 'wrong';
    return account.inactive ? 'inactive' : account;
  }
  const signedIn = await passwordSignIn(svc, username, password, account);
  if (signedIn === undefined) {
    // hashed when the account is unknown, so that timing does not tell which usernames exist
    if (account === null) await verifyPassword(password, unknownAccountHash(svc.scryptCost));
    return 'wrong';
  }
  return signedIn.inactive ? 'inactive' : signedIn;
}

/**
 * A sign-in with the external password methods: the account it stands for, brought up to date, or
 * undefined when no method accepted. A method that does not answer is passed over for the next; when
 * none accepted and one did not answer, 503 `AUTH_PROVIDER_UNAVAILABLE` (it might have known them).
 */
async function passwordSignIn(
  svc: AdminContext,
  username: string,
  password: string,
  account: AccountRecord | null,
): Promise<AccountRecord | undefined> {
  const methods = (await svc.signIn.all()).filter((m): m is PasswordMethod => m.kind === 'password');
  const asked = account === null ? methods : methods.filter((m) => m.name === account.provenance);
  if (account !== null && asked.length === 0) {
    svc.log.warn(
      { username, provenance: account.provenance },
      'Sign-in refused: the sign-in method of this account is not configured or not a password method',
    );
    return undefined;
  }
  let unavailable: unknown;
  for (const method of asked) {
    let result;
    try {
      result = await method.authenticate(username, password);
    } catch (err) {
      if (!hasCode(err, 'AUTH_PROVIDER_UNAVAILABLE')) throw err;
      svc.log.warn({ provider: method.name, username, err: (err as Error).message }, 'Sign-in method unavailable');
      unavailable ??= err;
      continue;
    }
    if (result.outcome === 'unknown') continue;
    if (result.outcome === 'rejected') {
      svc.log.info({ provider: method.name, username, reason: result.reason }, 'Sign-in refused by the method');
      return undefined;
    }
    return signedInAccount(svc, method, result.identity);
  }
  if (unavailable !== undefined) throw unavailable;
  return undefined;
}

/**
 * The account of a person a method vouched for, created or brought up to date: its groups of that
 * method are those the method names now (each a NAP group with `provenance`, created the first time,
 * the admin role following the method's admin groups); its other groups stay. Undefined when the
 * username belongs to a local account or to another method: a directory never takes over an
 * account it did not create. Every method, password or browser, ends here.
 */
export async function signedInAccount(
  svc: AdminContext,
  method: SignInMethod,
  identity: ExternalIdentity,
): Promise<AccountRecord | undefined> {
  let account = await svc.accounts.findByUsername(identity.username);
  if (account !== null && account.provenance !== method.name) return notTakenOver(svc, method, identity, account);
  if (account !== null) checkSamePerson(svc, method, identity, account);
  const groups = await directoryGroups(svc, method, identity.groups);
  const groupIds = groups.map((g) => g._id);
  const now = new Date().toISOString();
  if (account === null) {
    try {
      account = await svc.accounts.insert(externalAccountRecord(identity, method.name, groupIds, now));
      svc.log.info(
        { provider: method.name, username: identity.username, groups: groups.map((g) => g.name) },
        'Account of a sign-in method created',
      );
      return account;
    } catch (err) {
      if (!hasCode(err, 'ACCOUNT_ALREADY_EXISTS')) throw err;
      // the same person signing in twice at once: the other sign-in made it
      account = await svc.accounts.findByUsername(identity.username);
      if (account === null || account.provenance !== method.name) return notTakenOver(svc, method, identity, account);
      checkSamePerson(svc, method, identity, account);
    }
  }
  const current = account.groups.length ? await svc.groups.byIds(account.groups) : [];
  const after = groupsAfterSignIn(account.groups, new Map(current.map((g) => [g._id, g.provenance])), method.name, groupIds);
  const changes = externalAccountChanges(account, identity, after, method.name, now);
  if (changes === undefined) return account;
  const updated = await svc.accounts.update(account._id, changes);
  if ('groups' in changes) {
    const before = new Set(account.groups);
    svc.log.info(
      {
        provider: method.name,
        username: account.username,
        added: groups.filter((g) => !before.has(g._id)).map((g) => g.name),
        removed: current.filter((g) => !after.includes(g._id)).map((g) => g.name),
      },
      'Groups of an account changed by its sign-in method',
    );
    await svc.events.accountChanged({ accountId: account._id, reason: 'groups' });
  }
  return updated;
}

/**
 * Refuses a person of the method whose username is that of an account another person of the same
 * method holds (see `samePerson`): 401 `UNAUTHENTICATED`, logged with both subjects.
 */
function checkSamePerson(svc: AdminContext, method: SignInMethod, identity: ExternalIdentity, account: AccountRecord): void {
  const why = method.samePerson?.(account.externalId, identity);
  if (why === undefined) return;
  svc.log.warn(
    { provider: method.name, username: identity.username, externalId: identity.externalId, accountExternalId: account.externalId },
    'Sign-in refused: the account is bound to another person of the sign-in method',
  );
  throw new AppError(
    'UNAUTHENTICATED',
    `Sign-in with "${method.name}" refused: the account "${identity.username}" ${why}; ` +
      'if the provider gave the name to someone new, or the account moved to another identity provider, an administrator deletes the old account first',
  );
}

/** The refusal of a sign-in whose username belongs to a local account or to another method, logged. */
function notTakenOver(svc: AdminContext, method: SignInMethod, identity: ExternalIdentity, account: AccountRecord | null): undefined {
  svc.log.warn(
    { provider: method.name, username: identity.username, provenance: account?.provenance ?? 'local' },
    'Sign-in refused: an account of that username belongs to NAP or to another sign-in method',
  );
  return undefined;
}

/** The NAP groups of a method's group names: found by the name the method gives them, created when new, admin role applied. */
async function directoryGroups(svc: AdminContext, method: SignInMethod, names: readonly string[]): Promise<GroupRecord[]> {
  const unique = names.filter((name, i) => names.findIndex((other) => sameGroupName(other, name)) === i);
  if (unique.length === 0) return [];
  const existing = await svc.groups.byExternalNames(method.name, unique);
  const out: GroupRecord[] = [];
  for (const name of unique) {
    let group = existing.find((g) => g.externalName === name) ?? (await directoryGroup(svc, method.name, name));
    const change = adminRoleChange(
      group,
      method.adminGroups.some((admin) => sameGroupName(admin, name)),
    );
    if (change !== undefined) {
      group = await svc.groups.update(group._id, { ...change, lastUpdated: new Date().toISOString(), lastUpdatedBy: method.name });
      await svc.events.groupChanged({ groupId: group._id });
    }
    out.push(group);
  }
  return out;
}

/** The NAP group of a method's group, created the first time (under another name when its own is taken). */
async function directoryGroup(svc: AdminContext, provenance: string, externalName: string): Promise<GroupRecord> {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const taken = (await svc.groups.findByName(externalName)) !== null;
    const record = newGroupRecord(
      { name: newGroupName(externalName, provenance, taken), description: `Group "${externalName}" of sign-in method ${provenance}` },
      provenance,
      new Date().toISOString(),
    );
    try {
      return await svc.groups.insert({ ...record, provenance, externalName });
    } catch (err) {
      if (!hasCode(err, 'GROUP_ALREADY_EXISTS')) throw err;
      // another sign-in made it at the same time, or the name was taken since the look
      const [made] = await svc.groups.byExternalNames(provenance, [externalName]);
      if (made !== undefined) return made;
    }
  }
  throw new AppError('CONFLICT', `No name is free for group "${externalName}" of sign-in method ${provenance}`);
}

/**
 * One login attempt under the throttle: counted before the password is checked (429
 * `LOGIN_THROTTLED` while the username or the address must wait, the password never checked then),
 * given back when it holds (the username's count forgotten), logged without the password when it
 * does not, given back when the directory that must decide does not answer (503). The password is
 * checked by {@link verifyCredentials}. Answers the account, or why it was refused.
 */
export async function attemptLogin(
  svc: AdminContext,
  username: string,
  password: string,
  attempt: LoginAttempt,
): Promise<AccountRecord | 'wrong' | 'inactive'> {
  const now = svc.now();
  const counts = attemptCounts(username, attempt.address);
  const counted = await countAhead(svc, counts, username, attempt, now);
  await svc.loginAttempts.forgetExpiredNow(now);
  let outcome: AccountRecord | 'wrong' | 'inactive';
  try {
    outcome = await verifyCredentials(svc, username, password);
  } catch (err) {
    // a directory that did not answer is no failure of the person: what was counted goes back
    if (hasCode(err, 'AUTH_PROVIDER_UNAVAILABLE')) attempt.count('unavailable');
    await giveBack(svc, counts.account, counted.account, now);
    if (counts.address !== undefined && counted.address !== undefined) await giveBack(svc, counts.address, counted.address, now);
    throw err;
  }
  attempt.count(outcome === 'wrong' || outcome === 'inactive' ? outcome : 'ok');
  if (outcome !== 'wrong' && outcome !== 'inactive') {
    await svc.loginAttempts.forget(counts.account);
    if (counts.address !== undefined && counted.address !== undefined) await giveBack(svc, counts.address, counted.address, now);
    // a password checked to change it is no sign-in
    if (attempt.via !== 'password-change') await noteSignIn(svc, outcome);
    return outcome;
  }
  const accountCount = await svc.loginAttempts.find(counts.account);
  attempt.log.warn(
    { username, address: attempt.address, via: attempt.via, failures: accountCount?.failures },
    outcome === 'inactive' ? 'Login refused: the account is inactive' : 'Login failed: wrong username or password',
  );
  if (secondsToWait(accountCount, now) > 0) {
    // the gateways forget Basic credentials of an account whose logins now wait
    const account = await svc.accounts.findByUsername(username);
    if (account !== null) await svc.events.accountChanged({ accountId: account._id, reason: 'throttled' });
  }
  return outcome;
}

/**
 * Counts the attempt as a failure of its username and of its address, each only while it need not
 * wait; 429 when one must (what it counted already given back).
 */
async function countAhead(
  svc: AdminContext,
  counts: AttemptCounts,
  username: string,
  attempt: LoginAttempt,
  now: number,
): Promise<{ account: CountedAttempt; address?: CountedAttempt }> {
  const ids = counts.address === undefined ? [counts.account] : [counts.account, counts.address];
  const waiting = longestWait(await svc.loginAttempts.findMany(ids), counts, now);
  if (waiting) throw throttledLogin(username, attempt, waiting);
  const id = randomUUID();
  const rules = svc.settings.loginThrottle;
  const countOne = async (scope: AttemptScope, countId: string): Promise<CountedAttempt> => {
    let wait = 0;
    let mine: CountedAttempt | undefined;
    await svc.loginAttempts.change(countId, (current) => {
      // called again when another replica changed the count in between: only the last call holds
      mine = undefined;
      wait = secondsToWait(current, now);
      if (wait > 0) return undefined;
      mine = countedAttempt(current, id, now);
      return withFailure(current, countId, scope, id, now, rules);
    });
    if (mine === undefined) throw throttledLogin(username, attempt, { scope, retryAfterSeconds: wait });
    return mine;
  };
  const account = await countOne('account', counts.account);
  if (counts.address === undefined) return { account };
  try {
    return { account, address: await countOne('address', counts.address) };
  } catch (err) {
    // another attempt made the address wait since the read: the username's failure goes back
    await giveBack(svc, counts.account, account, now);
    throw err;
  }
}

export function throttledLogin(username: string, attempt: LoginAttempt, throttled: Throttled): AppError {
  attempt.count('throttled');
  attempt.log.warn({ username, address: attempt.address, via: attempt.via, ...throttled }, 'Login throttled');
  return loginThrottled(username, throttled);
}

/** Gives back a failure counted ahead by an attempt that succeeded or was throttled after all. */
async function giveBack(svc: AdminContext, countId: string, counted: CountedAttempt, now: number): Promise<void> {
  await svc.loginAttempts.change(countId, (current) => (current === null ? undefined : withoutFailure(current, counted, now)));
}

/** Notes on the account that it signed in now (`lastLogin`, for access reviews): every method, password or browser, ends here. */
export async function noteSignIn(svc: AdminContext, account: AccountRecord): Promise<void> {
  await svc.accounts.signedIn(account._id, new Date(svc.now()).toISOString());
}

/** 400 naming `member` when a new password breaks the active profile's password rules. */
export function checkPasswordRules(svc: AdminContext, password: string, member: string): void {
  const problem = passwordProblem(password, svc.settings.passwordMinLength);
  if (problem !== undefined) throw invalidMember(member, problem);
}
