import { randomUUID } from 'node:crypto';
import type { Bus } from '@nap/bus';
import { APPLICATIONS, APPLICATION_NAMES, AppError, adapterDataSchema, parseAs, signToken } from '@nap/contracts';
import type {
  AdapterData,
  AdapterRecord,
  ApplicationChange,
  ApplicationHealth,
  ApplicationName,
  ApplicationRecord,
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
import { BUNDLE_KINDS, isBundleType, transformationExists } from './clients/bundle-kinds';
import type { AdminEvents } from './clients/events';
import type { IntegrationCalls } from './clients/integration-calls';
import type { OutboundHttp } from './clients/outbound-http';
import type { PackageSources } from './clients/package-sources';
import type { Replicas } from './clients/replicas';
import type { ServiceIndexes } from './clients/service-indexes';
import { accountView, callerOf, checkedGroups, lastAdmin, losesAdmin } from './domain/accounts';
import type { AccountView } from './domain/accounts';
import { adapterSettingsOf, adapterTarget, adapterView, newAdapterDoc, outboundOf, sealedAdapterData } from './domain/adapters';
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
import { verifyPassword } from './domain/password';
import { dependenciesOutside, existingArtifact, inInstallOrder, missingDependency, packageProblems, planBundles } from './domain/prebuilts';
import type { Call, PlannedBundle, PrebuiltOptions, Problem } from './domain/prebuilts';
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
import type { PrebuiltDoc, PrebuiltRepository } from './store/prebuilts';
import type { ProfileRecord, ProfileRepository } from './store/profiles';
import type { SessionRepository } from './store/sessions';
import type { SigningKeyRepository } from './store/signing-keys';

/** What every admin handler receives: the repositories, the clients, the engine parts and the live settings. */
export interface AdminContext {
  accounts: AccountRepository;
  groups: GroupRepository;
  sessions: SessionRepository;
  links: LinkRepository;
  applicationStates: ApplicationStateRepository;
  profiles: ProfileRepository;
  activeProfile: ActiveProfileRepository;
  prebuilts: PrebuiltRepository;
  integrationModels: IntegrationModelRepository;
  modelSources: IntegrationModelSourceRepository;
  integrations: IntegrationRepository;
  adapters: AdapterRepository;
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

/** Checks a username and password; the caller they stand for, or 401. */
export async function checkCredentials(svc: AdminContext, username: string, password: string): Promise<Caller> {
  const account = await svc.accounts.findByUsername(username);
  const ok = await verifyPassword(password, account?.passwordHash ?? UNKNOWN_ACCOUNT_HASH);
  if (!account || !ok) throw new AppError('UNAUTHENTICATED', `The username or password of "${username}" is wrong`);
  if (account.inactive) throw new AppError('UNAUTHENTICATED', `Account "${username}" is inactive`);
  return callerOfAccount(svc, account);
}

/** The caller an account stands for, with its groups' roles as they are now. */
export async function callerOfAccount(svc: AdminContext, account: AccountRecord): Promise<Caller> {
  return callerOf(account, account.groups.length === 0 ? [] : await svc.groups.byIds(account.groups));
}

/** Begins a session for the caller and signs its token. */
export async function issueToken(svc: AdminContext, caller: Caller, method: string): Promise<IssuedToken> {
  const signing = await svc.signingKey();
  const sid = randomUUID();
  const now = Date.now();
  const ttlSeconds = svc.settings.tokenTtlSeconds;
  const session = newSession(sid, caller, method, now, ttlSeconds);
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
  const record = await svc.profiles.insert(
    profileRecordOf(withDefaults(profile), svc.secrets, undefined, new Date().toISOString(), by, at),
  );
  return profileView(record, false, false);
}

/** Replaces a profile (the id stays; defaults fill what it lacks); when it is active, its live members reach every replica. */
export async function replaceProfile(svc: AdminContext, id: string, profile: Profile, by: string) {
  if (profile.id !== id) throw invalidMember('body.properties.id', `is "${profile.id}"; a profile keeps its id ("${id}")`);
  const before = await svc.profiles.get(id);
  const record = profileRecordOf(withDefaults(profile), svc.secrets, before.profile, before.created, by);
  await svc.profiles.replace(record);
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
export async function saveRepositoryConfigs(svc: AdminContext, repoConfigs: RepositoryConfigs, by: string): Promise<void> {
  const profile = await activeProfile(svc);
  await replaceProfile(svc, profile.id, { ...profile, prebuiltProps: { ...profile.prebuiltProps, repoConfigs } }, by);
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
  const { path, headers, body, timeoutMs } = outboundOf(req, adapterSettingsOf(doc), svc.settings.integrationTimeoutMs);
  const started = Date.now();
  const answer = await svc.http.send(adapterTarget(doc, svc.secrets, noBasePath), { method: req.method, path, headers, body, timeoutMs });
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
): Promise<{ problems: Problem[]; planned: PlannedBundle[] }> {
  const problems = packageProblems(pkg, await svc.prebuilts.findByName(pkg.metadata.name), upgrading);
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
  return { problems, planned: inInstallOrder(plan.planned) };
}
