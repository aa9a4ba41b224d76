import { isDeepStrictEqual } from 'node:util';
import { APPLICATION_NAMES, AppError, hasCode, isLogLevel, parseAs, profileSchema } from '@nap/contracts';
import type { ListQueryOptions, Profile } from '@nap/contracts';
import type { SecretBox } from '@nap/runtime';
import { toListQuery } from '@nap/store';
import type { Collection, Store } from '@nap/store';
import type { ProfileLiveSettings } from './applications';
import { maskSettings, openSettings, sealSettings } from './sealed-settings';

/** A stored profile: the document with its secrets sealed (repository tokens, TLS passphrases). */
export interface ProfileDoc {
  _id: string;
  [key: string]: unknown;
  id: string;
  description: string;
  profile: Record<string, unknown>;
  created: string;
  lastUpdated: string;
  lastUpdatedBy: string;
}

/** The one document that names the active profile: switching is one write of it, so exactly one profile is active at any time. */
interface ActiveDoc {
  _id: 'active';
  [key: string]: unknown;
  id: string;
  switched: string;
  by: string;
}

/** Where each replica stands after a change: whether they all carry the active profile's live settings. */
export interface ReplicaSync {
  /** Sends every service's desired state to its replicas now; true when every replica took it. */
  pushAll(): Promise<boolean>;
  /** True when every replica of every service answers that it is as it should be. */
  inSync(): Promise<boolean>;
}

/** The id of the profile created on the first start. */
export const DEFAULT_PROFILE_ID = 'default';

/**
 * Members of a profile that NAP applies while it runs, the moment the active profile changes. The
 * rest is the record of the platform's configuration: NAP's processes read those settings from
 * their `NAP_*` variables when they start, so a change of them takes effect on restart.
 */
export const LIVE_PROFILE_MEMBERS = [
  'loggerProps.log_level',
  'loggerProps.console_level',
  'authenticationProps.logoutTime',
  'integrationProps.timeout',
  'prebuiltProps.repoConfigs',
] as const;

/** The members the server fills when a profile leaves them out. */
export function profileDefaults(): Omit<Profile, 'id'> {
  return {
    description: '',
    services: [...APPLICATION_NAMES],
    uiProps: {},
    authenticationProps: {},
    expressProps: {},
    loggerProps: {},
    systemProps: {},
    integrationProps: { timeout: 30_000 },
    retryStrategy: {},
    prebuiltProps: { repoConfigs: {} },
  };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The profile with every member it leaves out filled with its default (one level deep: a section given keeps only what it gives, plus defaults of that section). */
export function withDefaults(profile: Profile): Profile {
  const defaults: Record<string, unknown> = profileDefaults();
  const out: Record<string, unknown> = { ...defaults };
  for (const [key, value] of Object.entries(profile)) {
    const fallback = defaults[key];
    out[key] = isObject(value) && isObject(fallback) ? { ...fallback, ...value } : value;
  }
  return parseAs(profileSchema, out, 'profile');
}

/** Members (`section.member`, or `section` for a scalar or array) whose values differ between two profiles; the id is not compared. */
export function changedMembers(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const changed: string[] = [];
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (key === 'id') continue;
    const a = before[key];
    const b = after[key];
    if (isObject(a) && isObject(b)) {
      for (const member of new Set([...Object.keys(a), ...Object.keys(b)]))
        if (!isDeepStrictEqual(a[member], b[member])) changed.push(`${key}.${member}`);
    } else if (!isDeepStrictEqual(a, b)) {
      changed.push(key);
    }
  }
  return changed.sort();
}

/** The live settings a profile gives the services. */
export function liveSettingsOf(profile: Record<string, unknown>): ProfileLiveSettings {
  const logger = isObject(profile.loggerProps) ? profile.loggerProps : {};
  const auth = isObject(profile.authenticationProps) ? profile.authenticationProps : {};
  const integration = isObject(profile.integrationProps) ? profile.integrationProps : {};
  const level = isLogLevel(logger.console_level) ? logger.console_level : isLogLevel(logger.log_level) ? logger.log_level : undefined;
  const admin: Record<string, unknown> = {};
  if (typeof auth.logoutTime === 'number') admin.sessionIdleMinutes = auth.logoutTime;
  if (typeof integration.timeout === 'number') admin.integrationTimeoutMs = integration.timeout;
  return { ...(level !== undefined ? { logLevel: level } : {}), admin };
}

/**
 * Profiles: the platform's configuration documents. Exactly one is active (one stored pointer,
 * switched in one write); its live members reach every replica of every service at once, through
 * the applications' control channels; the rest takes effect when the processes restart.
 */
export class ProfileDomain {
  private readonly profiles: Collection<ProfileDoc>;
  private readonly state: Collection<ActiveDoc>;

  constructor(
    store: Store,
    private readonly secrets: SecretBox,
    private readonly replicas: ReplicaSync,
  ) {
    this.profiles = store.collection<ProfileDoc>('profiles');
    this.state = store.collection<ActiveDoc>('profile_state');
  }

  /** On the first start: the default profile, active. */
  async bootstrap(): Promise<void> {
    const now = new Date().toISOString();
    try {
      await this.profiles.insertOne(
        this.doc(withDefaults({ id: DEFAULT_PROFILE_ID, description: 'Created on the first start' }), undefined, now, 'system'),
      );
    } catch (err) {
      if (!hasCode(err, 'STORE_DUPLICATE_KEY')) throw err;
    }
    try {
      await this.state.insertOne({ _id: 'active', id: DEFAULT_PROFILE_ID, switched: now, by: 'system' });
    } catch (err) {
      if (!hasCode(err, 'STORE_DUPLICATE_KEY')) throw err;
    }
  }

  /** The live settings of the active profile (what the applications carry to the replicas). */
  async liveSettings(): Promise<ProfileLiveSettings> {
    const active = await this.activeDoc();
    return active === null ? { admin: {} } : liveSettingsOf(active.profile);
  }

  /** The active profile with its secrets opened: only for use inside the admin service, never answered. */
  async activeProfile(): Promise<Profile> {
    const active = await this.activeDoc();
    if (active === null) throw new AppError('PROFILE_NOT_FOUND', 'No profile is active');
    return parseAs(profileSchema, openSettings(active.profile, this.secrets), 'stored profile');
  }

  // ---- routes ----

  async list(query: ListQueryOptions) {
    const q = toListQuery(query, { filter: ['id', 'description'], sort: ['id', 'created', 'lastUpdated'], defaultSort: { id: 1 } });
    const [docs, total, activeId] = await Promise.all([
      this.profiles.find(q.filter, { sort: q.sort, skip: q.skip, limit: q.limit }),
      this.profiles.countDocuments(q.filter),
      this.activeId(),
    ]);
    const sync = docs.some((d) => d._id === activeId) ? await this.replicas.inSync() : false;
    return { results: docs.map((d) => this.record(d, d._id === activeId, sync)), total };
  }

  async get(id: string) {
    const doc = await this.named(id);
    const active = (await this.activeId()) === id;
    return this.record(doc, active, active && (await this.replicas.inSync()));
  }

  /** The profile document as stored, secrets answered as `********`. */
  async export(id: string): Promise<Profile> {
    return this.masked(await this.named(id));
  }

  /** `GET /schema/profiles`: the JSON Schema the server validates profiles with. */
  schema(): Record<string, unknown> {
    return { ...profileSchema, title: 'NAP profile' };
  }

  async create(profile: Profile, by: string, at = 'body.properties') {
    const filled = withDefaults(profile);
    const now = new Date().toISOString();
    try {
      const doc = await this.profiles.insertOne(this.doc(filled, undefined, now, by, at));
      return this.record(doc, false, false);
    } catch (err) {
      if (hasCode(err, 'STORE_DUPLICATE_KEY')) throw new AppError('PROFILE_ALREADY_EXISTS', `A profile with id "${profile.id}" exists`);
      throw err;
    }
  }

  /** `PUT /profiles/:id`: replaces the document (the id stays; defaults fill what it lacks). */
  async update(id: string, profile: Profile, by: string) {
    if (profile.id !== id) throw invalid('body.properties.id', `is "${profile.id}"; a profile keeps its id ("${id}")`);
    const before = await this.named(id);
    const filled = withDefaults(profile);
    const doc = this.doc(filled, before.profile, before.created, by);
    await this.profiles.replaceOne({ _id: id }, doc);
    const active = (await this.activeId()) === id;
    return this.changed(doc, active, active ? changedMembers(before.profile, doc.profile) : []);
  }

  /**
   * Never the active profile. Against a switch to it at the same moment: the profile is deleted,
   * then the pointer read again; had the switch won, the profile is put back and the answer is 409
   * (and a switch that finds its profile gone after writing the pointer puts the pointer back).
   */
  async remove(id: string): Promise<void> {
    await this.named(id);
    const refuse = () =>
      new AppError(
        'PROFILE_ACTIVE',
        `Profile "${id}" is active and cannot be deleted; activate another profile first (PUT /profiles/:id/active)`,
      );
    if ((await this.activeId()) === id) throw refuse();
    const deleted = await this.profiles.findOneAndDelete({ _id: id });
    if (deleted === null) throw new AppError('PROFILE_NOT_FOUND', `No profile with id "${id}"`);
    if ((await this.activeId()) === id) {
      await this.profiles.insertOne(deleted);
      throw refuse();
    }
  }

  /** `PUT /profiles/:id/active`: one write of the pointer; then the live members reach every replica. */
  async activate(id: string, by: string) {
    await this.named(id);
    const previous = await this.state.findOneAndUpdate(
      { _id: 'active' },
      { $set: { id, switched: new Date().toISOString(), by } },
      { returnDocument: 'before', upsert: true },
    );
    const doc = await this.profiles.findOne({ _id: id });
    if (doc === null) {
      // deleted between the check and the switch: the previous profile stays active
      if (previous !== null)
        await this.state.updateOne({ _id: 'active', id }, { $set: { id: previous.id, switched: previous.switched, by: previous.by } });
      throw new AppError('PROFILE_NOT_FOUND', `No profile with id "${id}"`);
    }
    const before =
      previous === null ? {} : previous.id === id ? doc.profile : ((await this.profiles.findOne({ _id: previous.id }))?.profile ?? {});
    return this.changed(doc, true, changedMembers(before, doc.profile));
  }

  /** `POST /profiles/import`: an exported profile, created inactive; a secret still `********` is refused. */
  async import(profile: Profile, by: string) {
    return this.create(profile, by, 'body.profile');
  }

  // ---- internals ----

  private async changed(doc: ProfileDoc, active: boolean, members: string[]) {
    const live = new Set<string>(LIVE_PROFILE_MEMBERS);
    const applied = active ? members.filter((m) => live.has(m)) : [];
    const restartRequired = active ? members.filter((m) => !live.has(m)) : [];
    const sync = active ? await this.replicas.pushAll() : false;
    return { ...this.record(doc, active, sync), applied, restartRequired };
  }

  private doc(
    profile: Profile,
    current: Record<string, unknown> | undefined,
    created: string,
    by: string,
    at = 'body.properties',
  ): ProfileDoc {
    const sealed = sealSettings(profile, this.secrets, current, at);
    return {
      _id: profile.id,
      id: profile.id,
      description: profile.description ?? '',
      profile: sealed,
      created,
      lastUpdated: new Date().toISOString(),
      lastUpdatedBy: by,
    };
  }

  private masked(doc: ProfileDoc): Profile {
    return parseAs(profileSchema, maskSettings(doc.profile), 'stored profile');
  }

  private record(doc: ProfileDoc, isActive: boolean, activeSync: boolean) {
    return { metadata: { isActive, activeSync }, profile: this.masked(doc) };
  }

  private async named(id: string): Promise<ProfileDoc> {
    const doc = await this.profiles.findOne({ _id: id });
    if (doc === null) throw new AppError('PROFILE_NOT_FOUND', `No profile with id "${id}"`);
    return doc;
  }

  private async activeId(): Promise<string | undefined> {
    return (await this.state.findOne({ _id: 'active' }))?.id;
  }

  private async activeDoc(): Promise<ProfileDoc | null> {
    const id = await this.activeId();
    return id === undefined ? null : this.profiles.findOne({ _id: id });
  }
}

function invalid(member: string, message: string): AppError {
  return new AppError('VALIDATION_FAILED', `${member} ${message}`, { details: [{ member, message }] });
}
