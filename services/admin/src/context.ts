import { randomUUID } from 'node:crypto';
import type { AuditRecorder, Bus, HandlerContext } from '@nap/bus';
import {
  APPLICATIONS,
  APPLICATION_NAMES,
  AppError,
  RELEASE,
  adapterDataSchema,
  auditChanges,
  hasCode,
  parseAs,
  signToken,
} from '@nap/contracts';
import type {
  AdapterData,
  AdapterRecord,
  ApplicationChange,
  ApplicationHealth,
  ApplicationName,
  ApplicationRecord,
  AuditVerification,
  Caller,
  IntegrationRecord,
  IntegrationSettings,
  ListQueryOptions,
  OutboundResponse,
  PrebuiltPackage,
  Profile,
} from '@nap/contracts';
import type { SecretBox } from '@nap/runtime';
import type { Logger } from '@nap/telemetry';
import { isRecord } from '@nap/util';
import { BUNDLE_KINDS, isBundleType, transformationExists } from './clients/bundle-kinds';
import type { AdminEvents } from './clients/events';
import type { IntegrationCalls } from './clients/integration-calls';
import type { OutboundHttp } from './clients/outbound-http';
import type { PackageSources } from './clients/package-sources';
import type { Replicas } from './clients/replicas';
import type { ServiceIndexes } from './clients/service-indexes';
import type { ActiveAuthentication, SignInMethods } from './clients/sign-in-methods';
import {
  accountView,
  callerOf,
  checkedGroups,
  externalAccountRecord,
  externalAccountChanges,
  lastAdmin,
  losesAdmin,
  newGroupRecord,
} from './domain/accounts';
import type { AccountView } from './domain/accounts';
import {
  adapterSettingsOf,
  adapterTarget,
  adapterView,
  newAdapterDoc,
  outboundOf,
  sealedAdapterData,
  withCredentials,
} from './domain/adapters';
import type { AdapterRequest } from './domain/adapters';
import {
  applicationHealth,
  applicationNamed,
  applicationRecord,
  carriedOut,
  changedSettings,
  documentChanges,
} from './domain/applications';
import type { ApplicationDocument, ProfileLiveSettings } from './domain/applications';
import { integrationRecordOf, integrationView } from './domain/integrations';
import type { IntegrationProperties } from './domain/integrations';
import type { AdminLiveSettings } from './domain/live-settings';
import {
  attemptCounts,
  attemptId,
  countedAttempt,
  longestWait,
  loginThrottled,
  passwordProblem,
  secondsToWait,
  withFailure,
  withoutFailure,
} from './domain/login-throttle';
import type { AttemptCounts, AttemptScope, CountedAttempt, Throttled } from './domain/login-throttle';
import { verifyPassword } from './domain/password';
import {
  dependenciesOutside,
  dependencyProblems,
  existingArtifact,
  inInstallOrder,
  missingDependency,
  packageProblems,
  planBundles,
  unmetDependencies,
} from './domain/prebuilts';
import type { Call, PlannedBundle, PlatformInventory, PrebuiltOptions, Problem, UnmetDependency } from './domain/prebuilts';
import {
  appliedMembers,
  changedMembers,
  liveSettingsOf,
  openedProfile,
  profileRecordOf,
  profileView,
  withDefaults,
} from './domain/profiles';
import type { RepositoryConfigs } from './domain/repository-configs';
import { maskSettings } from './domain/sealed-settings';
import { newSession } from './domain/sessions';
import type { IssuedToken } from './domain/sessions';
import {
  BROWSER_SIGN_IN_TTL_MS,
  adminRoleChange,
  groupsAfterSignIn,
  newGroupName,
  providerUnavailable,
  providersOf,
  recheckDue,
  safeReturnPath,
  sameGroupName,
  seededAuthenticationProps,
} from './domain/sign-in';
import type { BrowserMethod, ExternalIdentity, PasswordMethod, ProviderConfig, SignInMethod } from './domain/sign-in';
import { newSigningKeyRecord, openSigningKey } from './domain/signing-key';
import type { SigningKey } from './domain/signing-key';
import { invalidMember } from './domain/validation-error';
import type { AdapterMonitor } from './engine/adapter-monitor';
import type { ApplicationReconciler } from './engine/application-reconciler';
import type { AccountRecord, AccountRepository } from './store/accounts';
import type { ActiveProfileRepository } from './store/active-profile';
import type { AdapterRepository } from './store/adapters';
import type { ApplicationStateRepository } from './store/application-states';
import type { GroupRecord, GroupRepository } from './store/groups';
import type { IntegrationModelSourceRepository } from './store/integration-model-sources';
import type { IntegrationModelRepository } from './store/integration-models';
import type { IntegrationDoc, IntegrationRepository } from './store/integrations';
import type { LinkRepository } from './store/links';
import type { LoginAttemptRepository } from './store/login-attempts';
import type { PrebuiltDoc, PrebuiltRepository } from './store/prebuilts';
import type { ProfileRecord, ProfileRepository } from './store/profiles';
import type { SessionRecord, SessionRepository } from './store/sessions';
import type { BrowserSignInRepository } from './store/browser-sign-ins';
import type { SigningKeyRepository } from './store/signing-keys';
import { ChainVerifier, GENESIS } from './domain/audit-chain';
import { DEFAULT_AUDIT_RETENTION_DAYS } from './domain/profiles';
import type { AuditRepository } from './store/audit-records';

/** Where a helper tells the audit trail what a request changed: the handler's `ctx`. */
export type AuditSink = Pick<HandlerContext, 'audit'>;

/** What every admin handler receives: the repositories, the clients, the engine parts and the live settings. */
export interface AdminContext {
  accounts: AccountRepository;
  groups: GroupRepository;
  sessions: SessionRepository;
  /** Counts of failed logins per username and per address (login protection). */
  loginAttempts: LoginAttemptRepository;
  links: LinkRepository;
  applicationStates: ApplicationStateRepository;
  profiles: ProfileRepository;
  activeProfile: ActiveProfileRepository;
  prebuilts: PrebuiltRepository;
  integrationModels: IntegrationModelRepository;
  modelSources: IntegrationModelSourceRepository;
  integrations: IntegrationRepository;
  adapters: AdapterRepository;
  /** The audit trail's chain (appended by the engine's AuditAppender, read by the audit routes). */
  audit: AuditRepository;
  /** Records the admin service's own platform actions (retention) in the audit trail. */
  auditRecorder: AuditRecorder;
  events: AdminEvents;
  /** Calls to outside systems, with the authentication of an integration or adapter added. */
  http: OutboundHttp;
  integrationCalls: IntegrationCalls;
  packageSources: PackageSources;
  replicas: Replicas;
  indexes: ServiceIndexes;
  /** The bus, for its own health and for gathering every process's metrics. */
  bus: Bus;
  storeKind: string;
  pingStore(): Promise<void>;
  reconciler: ApplicationReconciler;
  adapterMonitor: AdapterMonitor;
  /** Seals secrets at rest (`NAP_SECRET_KEY`) and opens them only where a call is made. */
  secrets: SecretBox;
  log: Logger;
  /** Settings that change while the service runs; read on every use. */
  settings: AdminLiveSettings;
  /** The token signing key, generated on the first start and opened once per process. */
  signingKey(): Promise<SigningKey>;
  /** The external sign-in methods of the active profile (LDAP, RADIUS, …), built again when it changes. */
  signIn: SignInMethods;
  /** Browser sign-ins under way (OIDC, SAML) and SAML assertions seen. */
  browserSignIns: BrowserSignInRepository;
  /** The clock of login throttling, epoch ms (tests move it rather than wait). */
  now(): number;
}

// ---- accounts and groups ----

/** An account as answered, its roles resolved from its groups. */
export async function viewAccount(svc: AdminContext, account: AccountRecord): Promise<AccountView> {
  const groups = account.groups.length
    ? new Map((await svc.groups.byIds(account.groups)).map((g) => [g._id, g]))
    : new Map<string, GroupRecord>();
  return accountView(account, groups);
}

/** A page of accounts as answered (`GET /user-management/accounts`, `GET /authorization/accounts`). */
export async function listAccounts(svc: AdminContext, query: ListQueryOptions): Promise<{ results: AccountView[]; total: number }> {
  const { results, total } = await svc.accounts.list(query);
  const groups = new Map((await svc.groups.all()).map((g) => [g._id, g]));
  return { results: results.map((r) => accountView(r, groups)), total };
}

/** The group ids, each once; 400 naming `member` when some group does not exist. */
export async function checkGroups(svc: AdminContext, ids: string[], member: string): Promise<string[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  return checkedGroups(unique, await svc.groups.existing(unique), member);
}

/** Refuses moving an account from groups `before` to `after` when that leaves no active account with the admin role. */
export async function keepAnAdmin(svc: AdminContext, accountId: string, before: string[], after: string[]): Promise<void> {
  const adminGroups = await svc.groups.withRole('admin');
  if (!losesAdmin(before, after, adminGroups)) return;
  if ((await svc.accounts.countActiveIn(adminGroups, accountId)) === 0) throw lastAdmin();
}

/** Refuses taking the admin role from a group when no active account would hold it through another. */
export async function keepAdminRole(svc: AdminContext, groupId: string): Promise<void> {
  const otherAdminGroups = await svc.groups.withRole('admin', groupId);
  const others = otherAdminGroups.length ? await svc.accounts.countActiveIn(otherAdminGroups) : 0;
  if (others === 0) throw lastAdmin();
}

// ---- authentication and sessions ----

/** Hashed when the account is unknown, so that timing does not tell which usernames exist. */
const UNKNOWN_ACCOUNT_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

/** How a login attempt came: what it is logged with and counted by. */
export interface LoginAttempt {
  /** `login`, `oauth`, `basic` or `password-change`. */
  via: string;
  /** The source address the gateway saw; undefined for calls between services (then only the username's count applies). */
  address: string | undefined;
  log: Logger;
}

/** The attempt of a request, from its context: its route and the address the gateway passed on. */
export function loginAttempt(ctx: HandlerContext, via: string): LoginAttempt {
  return { via, address: ctx.clientAddress, log: ctx.log };
}

/**
 * Checks a username and password; the caller they stand for, 401 when they do not hold, 429 while
 * throttled, 503 `AUTH_PROVIDER_UNAVAILABLE` when the directory that must decide does not answer.
 */
export async function checkCredentials(svc: AdminContext, username: string, password: string, attempt: LoginAttempt): Promise<Caller> {
  const outcome = await attemptLogin(svc, username, password, attempt);
  if (outcome === 'inactive') throw new AppError('UNAUTHENTICATED', `Account "${username}" is inactive`);
  if (outcome === 'wrong') throw new AppError('UNAUTHENTICATED', `The username or password of "${username}" is wrong`);
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
    if (account === null) await verifyPassword(password, UNKNOWN_ACCOUNT_HASH);
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

// ---- browser sign-in (OIDC, SAML) ----

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
  throw invalidMember(
    member,
    provider === undefined
      ? `is missing: name the ${type ?? 'browser'} sign-in method (${names})`
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
): Promise<{ caller: Caller; returnTo: string }> {
  // the password was the identity provider's to check (and throttle); an address that keeps bringing
  // callbacks NAP refuses is counted, and waits, as for /login
  const addressCount = attempt.address === undefined ? undefined : attemptId('address', attempt.address);
  if (addressCount !== undefined) {
    const wait = secondsToWait(await svc.loginAttempts.find(addressCount), svc.now());
    if (wait > 0) throw throttledLogin('(browser sign-in)', attempt, { scope: 'address', retryAfterSeconds: wait });
  }
  try {
    return await browserSignInOutcome(svc, state, callback, type);
  } catch (err) {
    if (addressCount !== undefined && hasCode(err, 'UNAUTHENTICATED')) {
      const now = svc.now();
      const rules = svc.settings.loginThrottle;
      await svc.loginAttempts.change(addressCount, (current) => withFailure(current, addressCount, 'address', randomUUID(), now, rules));
    }
    throw err;
  }
}

async function browserSignInOutcome(
  svc: AdminContext,
  state: string | undefined,
  callback: { query: Record<string, string>; form: Record<string, string> },
  type: 'oidc' | 'saml',
): Promise<{ caller: Caller; returnTo: string }> {
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
  return { caller: await callerOfAccount(svc, account), returnTo: record.returnTo };
}

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
  if (method.recheck === undefined) {
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
      method.recheck({ username: account.username, externalId: account.externalId }),
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
  await svc.sessions.checked(session._id, now);
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
    await giveBack(svc, counts.account, counted.account, now);
    if (counts.address !== undefined && counted.address !== undefined) await giveBack(svc, counts.address, counted.address, now);
    throw err;
  }
  if (outcome !== 'wrong' && outcome !== 'inactive') {
    await svc.loginAttempts.forget(counts.account);
    if (counts.address !== undefined && counted.address !== undefined) await giveBack(svc, counts.address, counted.address, now);
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

function throttledLogin(username: string, attempt: LoginAttempt, throttled: Throttled): AppError {
  attempt.log.warn({ username, address: attempt.address, via: attempt.via, ...throttled }, 'Login throttled');
  return loginThrottled(username, throttled);
}

/** Gives back a failure counted ahead by an attempt that succeeded or was throttled after all. */
async function giveBack(svc: AdminContext, countId: string, counted: CountedAttempt, now: number): Promise<void> {
  await svc.loginAttempts.change(countId, (current) => (current === null ? undefined : withoutFailure(current, counted, now)));
}

/** 400 naming `member` when a new password breaks the active profile's password rules. */
export function checkPasswordRules(svc: AdminContext, password: string, member: string): void {
  const problem = passwordProblem(password, svc.settings.passwordMinLength);
  if (problem !== undefined) throw invalidMember(member, problem);
}

/** The caller an account stands for, with its groups' roles as they are now. */
export async function callerOfAccount(svc: AdminContext, account: AccountRecord): Promise<Caller> {
  return callerOf(account, account.groups.length === 0 ? [] : await svc.groups.byIds(account.groups));
}

/** Begins a session for the caller and signs its token; a session of an account of a sign-in method is re-checked with it from now on. */
export async function issueToken(svc: AdminContext, caller: Caller, method: string): Promise<IssuedToken> {
  const signing = await svc.signingKey();
  const sid = randomUUID();
  const now = Date.now();
  const ttlSeconds = svc.settings.tokenTtlSeconds;
  const provenance = (await svc.accounts.find(caller.id))?.provenance;
  const session = newSession(sid, caller, method, now, ttlSeconds, provenance);
  await svc.sessions.insert(session);
  const token = signToken(
    { sid, sub: caller.id, iat: Math.floor(now / 1000), exp: Math.floor(session.expiresAt / 1000), kid: signing.kid },
    signing.key,
  );
  return { token, sid, expiresIn: ttlSeconds };
}

/** Revokes the session and tells the gateways. */
export async function endSession(svc: AdminContext, sid: string): Promise<void> {
  const session = await svc.sessions.revoke(sid);
  if (session) await svc.events.sessionRevoked({ sid, exp: Math.floor(session.expiresAt / 1000) });
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

// ---- applications ----

/** The application as `GET /applications/:name` answers it: its record and what its replicas report. */
export async function applicationRecordOf(svc: AdminContext, app: ApplicationName): Promise<ApplicationRecord> {
  const service = APPLICATIONS[app].service;
  const view = await svc.reconciler.view(service);
  return applicationRecord(app, view, view.states.get(service) ?? (await svc.applicationStates.get(service)));
}

/** Stores an application's description, loggerProps or live settings and has every replica apply them at once. */
export async function applyApplicationDocument(
  svc: AdminContext,
  app: ApplicationName,
  body: ApplicationDocument,
  by: string,
): Promise<ApplicationChange> {
  const service = APPLICATIONS[app].service;
  const before = await svc.applicationStates.get(service);
  const { set, said } = documentChanges(app, body);
  const after = await svc.applicationStates.change(service, set, `${said.join(', ') || 'nothing'} changed by ${by}`, by);
  const outcomes = carriedOut(await svc.reconciler.push(service), 'apply the settings of');
  const record = await applicationRecordOf(svc, app);
  return {
    ...record,
    changes: {
      applied: body.properties === undefined ? [] : changedSettings(before.properties, after.properties),
      replicas: outcomes.length,
      restartRequired: [],
    },
  };
}

/** Health of every application (or of one, 404 when unknown), from discovery and the replicas' `$SRV.STATS`. */
export async function applicationsHealth(svc: AdminContext, name?: string): Promise<ApplicationHealth[]> {
  const names = name === undefined ? [...APPLICATION_NAMES] : [applicationNamed(name)];
  const only = name === undefined ? undefined : APPLICATIONS[names[0] as ApplicationName].service;
  const [replicas, stats] = await Promise.all([svc.replicas.discover(only), svc.replicas.stats(only)]);
  const states = await svc.applicationStates.all();
  const now = Date.now();
  return names.map((app) => applicationHealth(app, replicas, stats, states.get(APPLICATIONS[app].service), now));
}

// ---- profiles ----

/** The active profile as stored, null when none is. */
async function activeProfileRecord(svc: AdminContext): Promise<ProfileRecord | null> {
  const id = await svc.activeProfile.activeId();
  return id === undefined ? null : svc.profiles.find(id);
}

/** The live settings of the active profile (what the applications carry to the replicas). */
export async function profileLiveSettings(svc: AdminContext): Promise<ProfileLiveSettings> {
  const active = await activeProfileRecord(svc);
  return active === null ? { admin: {} } : liveSettingsOf(active.profile);
}

/** Stores a new profile, inactive, filled with its defaults and its secrets sealed (`at`: where it sits in the request). */
export async function addProfile(svc: AdminContext, profile: Profile, by: string, at: string) {
  providersOf(profile.authenticationProps, `${at}.authenticationProps`);
  const record = await svc.profiles.insert(
    profileRecordOf(withDefaults(profile), svc.secrets, undefined, new Date().toISOString(), by, at),
  );
  return profileView(record, false, false);
}

/** Replaces a profile (the id stays; defaults fill what it lacks); when it is active, its live members reach every replica. */
export async function replaceProfile(svc: AdminContext, id: string, profile: Profile, by: string, audit?: AuditSink) {
  if (profile.id !== id) throw invalidMember('body.properties.id', `is "${profile.id}"; a profile keeps its id ("${id}")`);
  providersOf(profile.authenticationProps, 'body.properties.authenticationProps');
  const before = await svc.profiles.get(id);
  const record = profileRecordOf(withDefaults(profile), svc.secrets, before.profile, before.created, by);
  await svc.profiles.replace(record);
  // secrets are compared sealed: a secret sent back as ******** keeps its sealed value, a new one shows as changed
  audit?.audit({ target: { kind: 'profile', id, name: id }, changes: auditChanges(before.profile, record.profile) });
  const active = (await svc.activeProfile.activeId()) === id;
  return profileChanged(svc, record, active, active ? changedMembers(before.profile, record.profile) : []);
}

/** The answer to a change of a profile: which members apply at once, and whether every replica took them. */
export async function profileChanged(svc: AdminContext, record: ProfileRecord, active: boolean, members: string[]) {
  const { applied, restartRequired } = appliedMembers(members, active);
  const sync = active ? await svc.reconciler.pushAll() : false;
  return { ...profileView(record, active, sync), applied, restartRequired };
}

// ---- prebuilt repositories ----

/** The prebuilt repository configurations of the active profile, tokens opened. */
export async function repositoryConfigs(svc: AdminContext): Promise<RepositoryConfigs> {
  return { ...((await activeProfile(svc)).prebuiltProps?.repoConfigs ?? {}) };
}

/** Replaces the prebuilt repository configurations of the active profile. */
export async function saveRepositoryConfigs(
  svc: AdminContext,
  repoConfigs: RepositoryConfigs,
  by: string,
  audit?: AuditSink,
): Promise<void> {
  const profile = await activeProfile(svc);
  await replaceProfile(svc, profile.id, { ...profile, prebuiltProps: { ...profile.prebuiltProps, repoConfigs } }, by, audit);
}

/** The active profile's authentication settings for the sign-in methods: a version to compare, the settings opened only when asked. */
export async function activeAuthentication(svc: AdminContext): Promise<ActiveAuthentication> {
  const active = await activeProfileRecord(svc);
  if (active === null) return { version: 'none', authenticationProps: () => ({}) };
  return {
    version: `${active._id}@${active.lastUpdated}`,
    authenticationProps: () => openedProfile(active, svc.secrets).authenticationProps,
  };
}

/**
 * First start by environment: the providers of `NAP_LDAP_*` (`ldap`), `NAP_RADIUS_*` (`radius`),
 * `NAP_OIDC_*` (`oidc`) and `NAP_SAML_*` (`saml`)
 * written into the active profile when it has none of that name; the profile counts from then on.
 * The names of those it added.
 */
export async function seedSignInProviders(
  svc: AdminContext,
  fromEnvironment: Record<string, ProviderConfig | undefined>,
): Promise<string[]> {
  if (Object.values(fromEnvironment).every((config) => config === undefined)) return [];
  const profile = await activeProfile(svc);
  const auth = profile.authenticationProps as Record<string, unknown> | undefined;
  const seeded = seededAuthenticationProps(auth, fromEnvironment);
  if (seeded === undefined) return [];
  const before = new Set(Object.keys((auth?.providers as Record<string, unknown> | undefined) ?? {}));
  await replaceProfile(svc, profile.id, { ...profile, authenticationProps: seeded }, 'system');
  return Object.keys(seeded.providers as Record<string, unknown>).filter((name) => !before.has(name));
}

/** The active profile with its secrets opened: only for use inside the admin service, never answered. */
async function activeProfile(svc: AdminContext): Promise<Profile> {
  const active = await activeProfileRecord(svc);
  if (active === null) throw new AppError('PROFILE_NOT_FOUND', 'No profile is active');
  return openedProfile(active, svc.secrets);
}

// ---- integrations ----

/** An integration as stored for these properties (its model must exist), replacing `current` when given. */
export async function integrationRecordFor(
  svc: AdminContext,
  spec: { name: string; modelId: string; type: string | undefined; settings: IntegrationSettings },
  current: IntegrationDoc | undefined,
  by: string,
): Promise<IntegrationDoc> {
  const model = await svc.integrationModels.find(spec.modelId);
  return integrationRecordOf(spec, model, current, svc.secrets, by, new Date().toISOString());
}

/** Replaces an integration's model, type or properties (`PUT /integrations/:name` and `…/properties`); the name stays. */
export async function changeIntegration(
  svc: AdminContext,
  name: string,
  input: IntegrationProperties,
  by: string,
  audit?: AuditSink,
): Promise<IntegrationRecord> {
  const current = await svc.integrations.get(name);
  if (input.name !== undefined && input.name !== name)
    throw invalidMember('body.properties.name', `is "${input.name}"; an integration keeps its name ("${name}")`);
  const settings = input.properties ?? (maskSettings(current.settings) as IntegrationSettings);
  const doc = await integrationRecordFor(
    svc,
    { name, modelId: input.model ?? current.model, type: input.type ?? current.type, settings },
    current,
    by,
  );
  await svc.integrations.replace(doc);
  audit?.audit({ target: { kind: 'integration', id: name, name }, changes: auditChanges(current, doc) });
  svc.integrationCalls.forgetIntegration(current);
  return integrationView(doc);
}

// ---- adapters ----

/** Stores a new adapter, STOPPED (in place of a deleted one of that name); `how` goes to its changelog. */
export async function addAdapter(svc: AdminContext, input: AdapterData, by: string, how: 'created' | 'imported'): Promise<AdapterRecord> {
  const existing = await svc.adapters.find(input.name);
  if (existing !== null && existing.state !== 'DELETED') throw new AppError('ADAPTER_ALREADY_EXISTS', `An adapter "${input.name}" exists`);
  const doc = newAdapterDoc(input.name, sealedAdapterData(input, undefined, svc.secrets), by, how, new Date().toISOString());
  await svc.adapters.create(doc, existing !== null);
  svc.adapterMonitor.drop(input.name);
  await svc.adapterMonitor.announce(input.name, 'created', 'STOPPED');
  return adapterView(doc, svc.adapterMonitor.runtime(input.name));
}

/** Replaces the adapter document (`data`), or only its connection settings (`settings`); a running adapter restarts with it. */
export async function changeAdapter(
  svc: AdminContext,
  name: string,
  change: { data: AdapterData } | { settings: Record<string, unknown> },
  by: string,
  audit?: AuditSink,
): Promise<AdapterRecord> {
  const current = await svc.adapters.getLive(name);
  let data: AdapterData;
  if ('data' in change) {
    if (change.data.name !== name)
      throw invalidMember('body.properties.name', `is "${change.data.name}"; an adapter keeps its name ("${name}")`);
    data = change.data;
  } else {
    const currentData = parseAs(adapterDataSchema, current.data);
    data = { ...currentData, properties: { ...currentData.properties, properties: change.settings } };
  }
  const now = new Date().toISOString();
  const version = current.version + 1;
  const updated = await svc.adapters.update(
    name,
    current.version,
    { data: sealedAdapterData(data, current.data, svc.secrets), version, lastUpdated: now, lastUpdatedBy: by },
    { version: String(version), date: now, changes: `${'data' in change ? 'document' : 'connection settings'} updated by ${by}` },
  );
  audit?.audit({ target: { kind: 'adapter', id: name, name }, changes: auditChanges(current.data, updated.data) });
  await svc.adapterMonitor.announce(name, 'updated', svc.adapterMonitor.runtime(name)?.state ?? updated.state);
  if (updated.state === 'RUNNING') svc.adapterMonitor.relaunch(updated);
  return adapterView(updated, svc.adapterMonitor.runtime(name));
}

/** One request through a RUNNING adapter, its authentication added; answers whatever the system answered. */
export async function callThroughAdapter(
  svc: AdminContext,
  name: string,
  req: AdapterRequest,
  noBasePath = false,
): Promise<OutboundResponse> {
  const doc = await svc.adapters.getLive(name);
  const state = svc.adapterMonitor.runtime(name)?.state;
  if (state !== 'RUNNING')
    throw new AppError(
      'ADAPTER_NOT_RUNNING',
      `Adapter "${name}" is ${state ?? 'STOPPED'}, not RUNNING; start it (or restart it once its system answers)`,
    );
  const target = adapterTarget(doc, svc.secrets, noBasePath);
  const { credentialsAt, ...rest } = req;
  const request =
    credentialsAt === undefined ? rest : { ...rest, body: withCredentials(name, req.body, credentialsAt, target.authentication) };
  const { path, headers, body, timeoutMs } = outboundOf(request, adapterSettingsOf(doc), svc.settings.integrationTimeoutMs);
  const started = Date.now();
  const answer = await svc.http.send(target, { method: req.method, path, headers, body, timeoutMs });
  svc.adapterMonitor
    .loggerOf(doc)
    .debug({ adapter: name, method: req.method, path: req.path, status: answer.status, ms: Date.now() - started }, 'Adapter call answered');
  return answer;
}

// ---- prebuilts ----

/**
 * Every check of an import, writing nothing: the version, the package installed already, the
 * bundle types and names, clashes with artifacts that exist (`upgrading`: the prebuilt an upgrade
 * replaces, whose own artifacts give way), and the dependencies of its workflows. The bundles
 * come back in the order they are installed.
 */
export async function analysePrebuilt(
  svc: AdminContext,
  call: Call,
  pkg: PrebuiltPackage,
  options: PrebuiltOptions,
  upgrading?: PrebuiltDoc,
): Promise<{ problems: Problem[]; planned: PlannedBundle[]; unmet: UnmetDependency[] }> {
  const problems = packageProblems(pkg, await svc.prebuilts.findByName(pkg.metadata.name), upgrading);
  const unmet = unmetDependencies(pkg.metadata, await platformInventory(svc));
  problems.push(...dependencyProblems(unmet, options));
  const plan = planBundles(pkg, BUNDLE_KINDS, isBundleType);
  problems.push(...plan.problems);
  for (const p of plan.planned) {
    const existing = await p.kind.findByName(call, p.name);
    if (existing === undefined) continue;
    const outcome = existingArtifact(p, existing, await svc.prebuilts.ownerOf(existing.id), upgrading, options);
    if ('replace' in outcome) p.existing = outcome.replace;
    else problems.push(outcome.problem);
  }
  for (const dependency of dependenciesOutside(plan.planned)) {
    const found =
      dependency.kind === 'workflow'
        ? (await BUNDLE_KINDS.workflow?.findByName(call, dependency.ref)) !== undefined
        : await transformationExists(call, dependency.ref);
    if (!found) problems.push(missingDependency(dependency));
  }
  return { problems, planned: inInstallOrder(plan.planned), unmet };
}

/** The applications, adapters and prebuilts a package's IAPDependencies are checked against. */
async function platformInventory(svc: AdminContext): Promise<PlatformInventory> {
  const adapters = (await svc.adapters.live()).map((doc) => ({
    name: doc.name,
    ...(typeof doc.data.model === 'string' ? { model: doc.data.model } : {}),
    ...(typeof doc.data.version === 'string' ? { version: doc.data.version } : {}),
  }));
  return { applications: APPLICATION_NAMES, applicationVersion: RELEASE, adapters, prebuilts: await svc.prebuilts.installedVersions() };
}

// ---- the audit trail ----

/** Records read a page at a time when the chain is verified. */
const VERIFY_PAGE = 1_000;
/** Default records in one export page, and the bytes a page stops at (a bus message must stay well under NATS's 1 MiB). */
const EXPORT_PAGE = 500;
const EXPORT_PAGE_BYTES = 512 * 1024;
/** Longest a read of the audit trail waits for the records of changes already answered to be chained. */
const CHAIN_WAIT_MS = 2_000;

/**
 * Waits until what the audit queue held when the read came is chained (at most 2 s: a read is not
 * refused because the appender is slow), so that a change answered before the read is in it. The
 * standalone platform answers a change once its entry is kept in the bus's journal and chains it
 * just after; over NATS the appender follows JetStream and this resolves at once.
 */
export function auditCaughtUp(svc: AdminContext): Promise<void> {
  return svc.bus.queueHandled('audit', CHAIN_WAIT_MS);
}

/** Recomputes the chain of every kept record, from the retention anchor (or the first record ever). */
export async function verifyAuditChain(svc: AdminContext): Promise<AuditVerification> {
  await auditCaughtUp(svc);
  const verifier = new ChainVerifier((await svc.audit.anchor()) ?? GENESIS);
  for (;;) {
    const page = await svc.audit.page(verifier.position.seq, VERIFY_PAGE);
    if (!verifier.check(page) || page.length < VERIFY_PAGE) return verifier.result();
  }
}

/** One page of the export: records after `afterSeq` within `since`/`until`, a JSON record a line, oldest first. */
export async function auditExportPage(
  svc: AdminContext,
  options: { since?: string; until?: string; afterSeq: number; limit?: number },
): Promise<string> {
  await auditCaughtUp(svc);
  const records = await svc.audit.page(options.afterSeq, options.limit ?? EXPORT_PAGE, options);
  let out = '';
  for (const { _id: _ignored, ...record } of records) {
    out += `${JSON.stringify(record)}\n`;
    if (out.length >= EXPORT_PAGE_BYTES) break;
  }
  return out;
}

/** Days the audit trail keeps a record: the active profile's `auditProps.retentionDays`, 400 by default. */
export async function auditRetentionDays(svc: AdminContext): Promise<number> {
  const active = await activeProfileRecord(svc);
  const audit: unknown = active?.profile.auditProps;
  const days = isRecord(audit) ? audit.retentionDays : undefined;
  return typeof days === 'number' && days > 0 ? days : DEFAULT_AUDIT_RETENTION_DAYS;
}
