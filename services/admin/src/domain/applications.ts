import { isDeepStrictEqual } from 'node:util';
import {
  APPLICATIONS,
  APPLICATION_NAMES,
  AppError,
  LOG_LEVELS,
  PROTECTED_APPLICATION,
  SERVICE_NAMES,
  SERVICE_SETTINGS_SCHEMAS,
  applicationsOfService,
  desiredStateRequestSchema,
  desiredStateSubject,
  hasCode,
  isAppError,
  isLogLevel,
  instanceStatusSchema,
  isApplicationName,
  isValid,
  parseAs,
} from '@nap/contracts';
import type {
  ApplicationChange,
  ApplicationHealth,
  ApplicationName,
  ApplicationRecord,
  ApplicationState,
  BodyOf,
  ControlReply,
  InstanceStatus,
  LogLevel,
  LoggerProps,
  ListQueryOptions,
  ServiceName,
} from '@nap/contracts';
import { decodeJson, encodeJson } from '@nap/bus';
import type { Bus, Subscription } from '@nap/bus';
import { MAX_LIST_LIMIT, listDocuments, toListQuery } from '@nap/store';
import type { Collection, ListFields, Store } from '@nap/store';
import type { Logger } from '@nap/telemetry';
import { withLevel } from './logger-props';
import { Replicas } from './replicas';
import type { Replica, ReplicaOutcome } from './replicas';

/** What an operator set for one service, stored in the admin service's `applications` collection. */
export interface ServiceDoc {
  _id: ServiceName;
  [key: string]: unknown;
  /** Stopped by an operator: every replica, new ones too, stays paused until started. */
  stopped: boolean;
  /** The log level an operator set for the service (none: the profile's, else the process's own). */
  logLevel?: LogLevel;
  loggerProps: Record<string, unknown>;
  /** Live settings an operator set (the service's schema); members left out keep the process's start values. */
  properties: Record<string, unknown>;
  /** Descriptions operators gave the service's applications. */
  descriptions: Record<string, string>;
  revision: number;
  changelog: { version: string; date: string; changes: string }[];
  lastUpdated: string;
  lastUpdatedBy: string;
}

/** The live parts of the active profile that reach the services. */
export interface ProfileLiveSettings {
  /** `loggerProps.console_level` (else `log_level`) of the active profile. */
  logLevel?: LogLevel;
  /** Settings of the admin service the profile gives (`sessionIdleMinutes`, `integrationTimeoutMs`). */
  admin: Record<string, unknown>;
}

/** What every replica of a service should be: what a `configure` command carries. */
interface Desired {
  paused: boolean;
  logLevel?: LogLevel;
  settings: Record<string, unknown>;
  revision: number;
  /** Compares two desired states. */
  key: string;
}

export interface ApplicationDomainOptions {
  /** How often replicas are brought to their desired state (new replicas, a missed change), ms; default 2000. */
  reconcileIntervalMs?: number;
  /** How long a replica may take to answer a control command, ms (a stop waits for its requests in flight). */
  controlTimeoutMs?: number;
  /** The live settings of the active profile. */
  profile: () => Promise<ProfileLiveSettings>;
}

const STATUS_TIMEOUT_MS = 1_500;

/** What the application list filters and sorts on (every application on one page unless asked otherwise). */
const APPLICATION_LIST_FIELDS: ListFields = {
  filter: ['name', 'state', 'service', 'isActive'],
  sort: ['name', 'state', 'service'],
  defaultSort: { name: 1 },
  defaultLimit: MAX_LIST_LIMIT,
};
/** What the application health list filters and sorts on. */
const HEALTH_LIST_FIELDS: ListFields = {
  filter: ['id', 'name', 'state', 'service', 'version', 'type'],
  sort: ['id', 'name', 'state', 'service'],
  defaultSort: { name: 1 },
  defaultLimit: MAX_LIST_LIMIT,
};

/** The application of that name, or 404 listing the applications. */
export function applicationNamed(name: string): ApplicationName {
  if (!isApplicationName(name))
    throw new AppError('APPLICATION_NOT_FOUND', `No application named "${name}"; the applications are ${APPLICATION_NAMES.join(', ')}`);
  return name;
}

/**
 * Applications: the platform's own services under the names the original platform gives them.
 * Their state comes from live discovery of each service's replicas; what operators set (stopped,
 * log level, live settings) is stored here and carried to every replica over its control channel,
 * at once on a change and by a periodic reconciliation for replicas that start later or missed it.
 */
export class ApplicationDomain {
  private readonly services: Collection<ServiceDoc>;
  private readonly replicas: Replicas;
  /** Replica instance → the desired-state key it last confirmed. */
  private readonly configured = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;
  private reconciling: Promise<void> | undefined;
  private desiredSubscription: Subscription | undefined;
  private readonly controlTimeoutMs: number;

  constructor(
    store: Store,
    private readonly bus: Bus,
    private readonly log: Logger,
    private readonly options: ApplicationDomainOptions,
  ) {
    this.services = store.collection<ServiceDoc>('applications');
    this.replicas = new Replicas(bus);
    this.controlTimeoutMs = options.controlTimeoutMs ?? 30_000;
  }

  /** Stores a record for each service that has none, then keeps replicas in step. */
  async start(): Promise<void> {
    const now = new Date().toISOString();
    for (const service of SERVICE_NAMES) {
      try {
        await this.services.insertOne({
          _id: service,
          stopped: false,
          loggerProps: {},
          properties: {},
          descriptions: {},
          revision: 0,
          changelog: [],
          lastUpdated: now,
          lastUpdatedBy: 'system',
        });
      } catch (err) {
        if (!hasCode(err, 'STORE_DUPLICATE_KEY')) throw err;
      }
    }
    // a replica asks before it registers: one of stopped application starts paused
    this.desiredSubscription = this.bus.subscribe(
      desiredStateSubject(),
      (msg) => {
        void this.answerDesired(msg.data).then((reply) => msg.reply?.(encodeJson(reply)));
      },
      { queue: 'admin' },
    );
    const interval = this.options.reconcileIntervalMs ?? 2_000;
    this.timer = setInterval(() => void this.reconcile(), interval);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    await this.desiredSubscription?.unsubscribe();
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.reconciling;
  }

  /** The answer to a starting replica: the `configure` command of its service's desired state. */
  private async answerDesired(data: Uint8Array): Promise<ControlReply> {
    try {
      const { service } = parseAs(desiredStateRequestSchema, decodeJson(data), 'desired state request');
      return { ok: true, result: configureCommand(await this.desired(service)) };
    } catch (err) {
      const error = isAppError(err) ? err : new AppError('INTERNAL', err instanceof Error ? err.message : String(err));
      if (!isAppError(err)) this.log.error({ err }, 'Could not answer the desired state of a service');
      return { ok: false, error: { code: error.code, message: error.message } };
    }
  }

  // ---- reads ----

  /** `GET /applications`: filtered and sorted on name, state, service and isActive with the shared list options. */
  async list(query: ListQueryOptions): Promise<{ results: ApplicationRecord[]; total: number }> {
    const view = await this.view();
    const all = await Promise.all(APPLICATION_NAMES.map((name) => this.record(name, view)));
    const rows = all.map((record) => ({
      _id: record.data.name,
      name: record.data.name,
      state: record.metadata.state,
      service: record.metadata.service,
      isActive: record.metadata.isActive,
      record,
    }));
    const { items, total } = listDocuments(rows, toListQuery(query, APPLICATION_LIST_FIELDS));
    return { results: items.map((row) => row.record), total };
  }

  /** `GET /health/applications`: filtered and sorted on id, name, state, service, version and type with the shared list options. */
  async healthList(query: ListQueryOptions): Promise<{ results: ApplicationHealth[]; total: number }> {
    const rows = (await this.health()).map((health) => ({ ...health, _id: health.id }));
    const { items, total } = listDocuments(rows, toListQuery(query, HEALTH_LIST_FIELDS));
    return { results: items.map(({ _id: _drop, ...health }) => health), total };
  }

  async get(name: string): Promise<ApplicationRecord> {
    const app = applicationNamed(name);
    return this.record(app, await this.view(APPLICATIONS[app].service));
  }

  async changelogs(name: string): Promise<{ results: { version: string; date: string; changes: string }[]; total: number }> {
    const doc = await this.doc(APPLICATIONS[applicationNamed(name)].service);
    const results = [...doc.changelog].reverse();
    return { results, total: results.length };
  }

  /** `GET /schema/applications/:name`: the JSON Schema of the service's live settings. */
  schema(name: string): Record<string, unknown> {
    const app = applicationNamed(name);
    const service = APPLICATIONS[app].service;
    return { ...SERVICE_SETTINGS_SCHEMAS[service], title: `Live settings of ${app} (service ${service})` };
  }

  /** Health of each application (or one), from discovery and the replicas' `$SRV.STATS`. */
  async health(name?: string): Promise<ApplicationHealth[]> {
    const names = name === undefined ? [...APPLICATION_NAMES] : [applicationNamed(name)];
    const only = name === undefined ? undefined : APPLICATIONS[names[0] as ApplicationName].service;
    const [replicas, stats] = await Promise.all([this.replicas.discover(only), this.replicas.stats(only)]);
    const docs = await this.docs();
    return names.map((app) => {
      const service = APPLICATIONS[app].service;
      const mine = replicas.filter((r) => r.service === service);
      const state = stateOf(mine, docs.get(service));
      return {
        id: app,
        name: app,
        type: 'Application',
        service,
        state,
        version: mine[0]?.version ?? null,
        endpoints: Math.max(0, ...mine.map((r) => r.endpoints)),
        instances: mine.map((r) => {
          const s = stats.find((x) => x.id === r.id);
          const requests = s?.endpoints.reduce((n, e) => n + e.num_requests, 0) ?? 0;
          const processingNs = s?.endpoints.reduce((n, e) => n + e.processing_time, 0) ?? 0;
          const started = s?.started ?? r.started;
          return {
            id: r.id,
            state: r.state,
            version: r.version,
            started,
            uptimeSeconds: Math.max(0, Math.round((Date.now() - Date.parse(started)) / 1000)) || 0,
            requests,
            errors: s?.endpoints.reduce((n, e) => n + e.num_errors, 0) ?? 0,
            averageProcessingMs: requests ? processingNs / requests / 1e6 : 0,
          };
        }),
      };
    });
  }

  // ---- changes ----

  async stopApplication(name: string, by: string) {
    const app = this.unprotected(name, 'stopped');
    const service = APPLICATIONS[app].service;
    await this.change(service, { $set: { stopped: true } }, `stopped by ${by} (${app})`, by);
    return this.lifecycle(app, await this.push(service));
  }

  async startApplication(name: string, by: string) {
    const app = applicationNamed(name);
    const service = APPLICATIONS[app].service;
    await this.change(service, { $set: { stopped: false } }, `started by ${by} (${app})`, by);
    return this.lifecycle(app, await this.push(service));
  }

  /** Stops every replica (each finishes what it holds) and starts it again. */
  async restartApplication(name: string, by: string) {
    const app = this.unprotected(name, 'restarted');
    const service = APPLICATIONS[app].service;
    const replicas = await this.replicas.discover(service);
    const doc = await this.change(service, { $set: { stopped: false } }, `restarted by ${by} (${app})`, by);
    this.failed(
      await this.replicas.sendAll(replicas, { command: 'configure', revision: doc.revision, paused: true }, this.controlTimeoutMs),
      'stop',
    );
    return this.lifecycle(app, await this.push(service));
  }

  /** `PUT …/loglevel`: the level every replica of the service logs at, at once; recorded under the transport (every one when absent). */
  async setLogLevel(name: string, level: LogLevel, transport: 'console' | 'file' | 'syslog' | undefined, by: string): Promise<LoggerProps> {
    const app = applicationNamed(name);
    const service = APPLICATIONS[app].service;
    const current = (await this.doc(service)).loggerProps;
    const next = withLevel(current, level, transport);
    await this.change(
      service,
      { $set: { logLevel: level, loggerProps: next } },
      `log level set to ${level}${transport ? ` (${transport})` : ''} by ${by}`,
      by,
    );
    this.failed(await this.push(service), 'change the log level of');
    return next;
  }

  /** `PUT …/properties`: replaces the service's live settings; each replica applies them at once. */
  async setProperties(name: string, properties: Record<string, unknown>, by: string): Promise<ApplicationChange> {
    const app = applicationNamed(name);
    return this.applyDocument(app, { properties }, by);
  }

  /** `PUT /applications/:name`: description, loggerProps and live settings; name and model stay. */
  async update(name: string, body: BodyOf<'admin.updateApplication'>['properties'], by: string): Promise<ApplicationChange> {
    const app = applicationNamed(name);
    const service = APPLICATIONS[app].service;
    if (body.name !== undefined && body.name !== app)
      throw invalid('body.properties.name', `is "${body.name}"; an application keeps its name ("${app}")`);
    if (body.model !== undefined && body.model !== `@nap/${service}`)
      throw invalid('body.properties.model', `is "${body.model}"; ${app} is served by @nap/${service}`);
    return this.applyDocument(app, body, by);
  }

  private async applyDocument(
    app: ApplicationName,
    body: { description?: string; loggerProps?: LoggerProps; properties?: Record<string, unknown> },
    by: string,
  ): Promise<ApplicationChange> {
    const service = APPLICATIONS[app].service;
    const before = await this.doc(service);
    const set: Record<string, unknown> = {};
    const said: string[] = [];
    if (body.properties !== undefined) {
      set.properties = settingsOf(service, body.properties);
      said.push(`settings ${JSON.stringify(set.properties)}`);
    }
    if (body.loggerProps !== undefined) {
      const level = body.loggerProps.console_level ?? body.loggerProps.log_level;
      if (level !== undefined && !isLogLevel(level))
        throw invalid(
          `body.properties.loggerProps.${body.loggerProps.console_level !== undefined ? 'console_level' : 'log_level'}`,
          `must be one of ${LOG_LEVELS.join(', ')}`,
        );
      set.loggerProps = body.loggerProps;
      if (level !== undefined) set.logLevel = level;
      said.push('loggerProps');
    }
    if (body.description !== undefined) {
      set[`descriptions.${app}`] = body.description;
      said.push('description');
    }
    const doc = await this.change(service, { $set: set }, `${said.join(', ') || 'nothing'} changed by ${by}`, by);
    const outcomes = this.failed(await this.push(service), 'apply the settings of');
    const changed = Object.keys({ ...before.properties, ...doc.properties }).filter(
      (k) => !isDeepStrictEqual(before.properties[k], doc.properties[k]),
    );
    const record = await this.get(app);
    return {
      ...record,
      changes: { applied: body.properties === undefined ? [] : changed.sort(), replicas: outcomes.length, restartRequired: [] },
    };
  }

  // ---- keeping replicas in step ----

  /** Brings every replica to its service's desired state; replicas that confirmed the current state are left alone. */
  reconcile(): Promise<void> {
    this.reconciling ??= (async () => {
      try {
        const replicas = await this.replicas.discover();
        const desired = new Map<ServiceName, Desired>();
        for (const replica of replicas) {
          let want = desired.get(replica.service);
          if (want === undefined) {
            want = await this.desired(replica.service);
            desired.set(replica.service, want);
          }
          if (this.configured.get(replica.instance) === want.key) continue;
          const [outcome] = await this.replicas.sendAll([replica], configureCommand(want), this.controlTimeoutMs);
          if (outcome?.ok) this.configured.set(replica.instance, want.key);
          else
            this.log.warn(
              { service: replica.service, instance: replica.instance, err: outcome?.ok === false ? outcome.error : undefined },
              'A replica did not take its configuration; trying again later',
            );
        }
        const present = new Set(replicas.map((r) => r.instance));
        for (const instance of this.configured.keys()) if (!present.has(instance)) this.configured.delete(instance);
      } catch (err) {
        this.log.warn({ err }, 'Reconciling the replicas failed; trying again later');
      } finally {
        this.reconciling = undefined;
      }
    })();
    return this.reconciling;
  }

  /** Sends the service's desired state to each of its replicas now; the outcome of each. */
  async push(service: ServiceName): Promise<ReplicaOutcome<unknown>[]> {
    const [replicas, want] = await Promise.all([this.replicas.discover(service), this.desired(service)]);
    const outcomes = await this.replicas.sendAll(replicas, configureCommand(want), this.controlTimeoutMs);
    for (const o of outcomes) if (o.ok) this.configured.set(o.replica.instance, want.key);
    return outcomes;
  }

  /** Sends every service's desired state to its replicas now (the active profile changed). */
  async pushAll(): Promise<ReplicaOutcome<unknown>[]> {
    return (await Promise.all(SERVICE_NAMES.map((s) => this.push(s)))).flat();
  }

  /** True when every replica of every service answers that it is as it should be. */
  async inSync(): Promise<boolean> {
    const view = await this.view();
    return SERVICE_NAMES.every((service) => this.syncOf(service, view));
  }

  // ---- internals ----

  private unprotected(name: string, what: string): ApplicationName {
    const app = applicationNamed(name);
    const service = APPLICATIONS[app].service;
    if (service === APPLICATIONS[PROTECTED_APPLICATION].service) {
      throw new AppError(
        'APPLICATION_PROTECTED',
        `${app} cannot be ${what}: its service (${service}) serves ${PROTECTED_APPLICATION}, which answers login and these administration routes; stopping it would lock every operator out`,
      );
    }
    return app;
  }

  private async desired(service: ServiceName): Promise<Desired> {
    const [doc, profile] = await Promise.all([this.doc(service), this.options.profile()]);
    const settings = service === 'admin' ? { ...profile.admin, ...doc.properties } : { ...doc.properties };
    const logLevel = doc.logLevel ?? profile.logLevel;
    const want: Omit<Desired, 'key'> = {
      paused: doc.stopped,
      settings,
      revision: doc.revision,
      ...(logLevel !== undefined ? { logLevel } : {}),
    };
    return { ...want, key: JSON.stringify([want.paused, want.logLevel ?? null, want.settings]) };
  }

  private async doc(service: ServiceName): Promise<ServiceDoc> {
    const doc = await this.services.findOne({ _id: service });
    return (
      doc ?? {
        _id: service,
        stopped: false,
        loggerProps: {},
        properties: {},
        descriptions: {},
        revision: 0,
        changelog: [],
        lastUpdated: '',
        lastUpdatedBy: '',
      }
    );
  }

  private async docs(): Promise<Map<ServiceName, ServiceDoc>> {
    const docs = await this.services.find({});
    return new Map(docs.map((d) => [d._id, d]));
  }

  private async change(service: ServiceName, update: { $set: Record<string, unknown> }, changes: string, by: string): Promise<ServiceDoc> {
    const now = new Date().toISOString();
    const doc = await this.services.findOneAndUpdate(
      { _id: service },
      { $set: { ...update.$set, lastUpdated: now, lastUpdatedBy: by }, $inc: { revision: 1 } },
      { returnDocument: 'after' },
    );
    if (doc === null) throw new AppError('INTERNAL', `The record of service ${service} is missing`);
    await this.services.updateOne({ _id: service }, { $push: { changelog: { version: String(doc.revision), date: now, changes } } });
    return doc;
  }

  /** Discovery and each replica's own account of itself. */
  private async view(only?: ServiceName): Promise<View> {
    const [replicas, docs] = await Promise.all([this.replicas.discover(only), this.docs()]);
    const outcomes = await this.replicas.sendAll(replicas, { command: 'status' }, STATUS_TIMEOUT_MS);
    const statuses = new Map<string, InstanceStatus>();
    for (const o of outcomes) if (o.ok && isValid(instanceStatusSchema, o.result)) statuses.set(o.replica.instance, o.result);
    const desired = new Map<ServiceName, Desired>();
    for (const service of only === undefined ? SERVICE_NAMES : [only]) desired.set(service, await this.desired(service));
    return { replicas, docs, statuses, desired };
  }

  private syncOf(service: ServiceName, view: View): boolean {
    const want = view.desired.get(service);
    const mine = view.replicas.filter((r) => r.service === service);
    if (want === undefined || mine.length === 0) return false;
    return mine.every((r) => {
      const status = view.statuses.get(r.instance);
      if (status === undefined || status.state !== (want.paused ? 'paused' : 'running')) return false;
      if (want.logLevel !== undefined && status.logLevel !== want.logLevel) return false;
      return Object.entries(want.settings).every(([k, v]) => isDeepStrictEqual(status.settings[k], v));
    });
  }

  private async record(app: ApplicationName, view: View): Promise<ApplicationRecord> {
    const service = APPLICATIONS[app].service;
    const doc = view.docs.get(service) ?? (await this.doc(service));
    const mine = view.replicas.filter((r) => r.service === service);
    const level =
      view.desired.get(service)?.logLevel ?? mine.map((r) => view.statuses.get(r.instance)?.logLevel).find((l) => l !== undefined);
    return {
      metadata: {
        isActive: !doc.stopped,
        activeSync: this.syncOf(service, view),
        state: stateOf(mine, doc),
        service,
        applications: applicationsOfService(service),
      },
      data: {
        name: app,
        type: 'Application',
        model: `@nap/${service}`,
        description: doc.descriptions[app] ?? APPLICATIONS[app].description,
        isEncrypted: false,
        loggerProps: { ...(level !== undefined ? { log_level: level, console_level: level } : {}), ...doc.loggerProps },
        properties: { ...doc.properties },
      },
      instances: mine.map((r) => ({ id: r.id, instance: r.instance, state: r.state, version: r.version, started: r.started })),
    };
  }

  private lifecycle(app: ApplicationName, outcomes: ReplicaOutcome<unknown>[]) {
    this.failed(outcomes, 'change');
    const service = APPLICATIONS[app].service;
    const states = outcomes.flatMap((o) => (o.ok && isValid(instanceStatusSchema, o.result) ? [o.result.state] : []));
    const state: ApplicationState = states.includes('running') ? 'RUNNING' : states.length > 0 ? 'STOPPED' : 'DEAD';
    return { name: app, state, service, applications: applicationsOfService(service), replicas: outcomes.length };
  }

  /** The outcomes when every replica carried out the command; 502 naming each one that did not. */
  private failed(outcomes: ReplicaOutcome<unknown>[], what: string): ReplicaOutcome<unknown>[] {
    const bad = outcomes.filter((o): o is Extract<ReplicaOutcome<unknown>, { ok: false }> => !o.ok);
    if (bad.length === 0) return outcomes;
    const service = bad[0]?.replica.service ?? '';
    throw new AppError(
      'APPLICATION_CONTROL_FAILED',
      `${bad.length} of ${outcomes.length} replicas of ${service} did not ${what} the service: ${bad.map((b) => `${b.replica.instance}: ${b.error.message}`).join('; ')}. The others did; the platform keeps trying.`,
      { details: bad.map((b) => ({ instance: b.replica.instance, code: b.error.code, message: b.error.message })) },
    );
  }
}

interface View {
  replicas: Replica[];
  docs: Map<ServiceName, ServiceDoc>;
  statuses: Map<string, InstanceStatus>;
  desired: Map<ServiceName, Desired>;
}

function stateOf(replicas: Replica[], doc: ServiceDoc | undefined): ApplicationState {
  if (replicas.some((r) => r.state === 'running')) return 'RUNNING';
  if (doc?.stopped === true || replicas.length > 0) return 'STOPPED';
  return 'DEAD';
}

function configureCommand(want: Desired) {
  // no level set by an operator or the active profile: each replica goes back to the level it started with
  return {
    command: 'configure' as const,
    revision: want.revision,
    paused: want.paused,
    settings: want.settings,
    logLevel: want.logLevel ?? null,
  };
}

function invalid(member: string, message: string): AppError {
  return new AppError('VALIDATION_FAILED', `${member} ${message}`, { details: [{ member, message }] });
}

/** The live settings, checked against the service's schema; an unknown member is 400 naming it. */
function settingsOf(service: ServiceName, properties: Record<string, unknown>): Record<string, unknown> {
  const schema = SERVICE_SETTINGS_SCHEMAS[service];
  const unknown = Object.keys(properties).filter((k) => !Object.hasOwn(schema.properties, k));
  if (unknown.length > 0) {
    const known = Object.keys(schema.properties);
    throw new AppError(
      'VALIDATION_FAILED',
      `body.properties.${unknown[0] ?? ''} is not a live setting of ${service} (${known.length ? `its live settings: ${known.join(', ')}` : 'it has none'}); its other settings are NAP_* variables read when the process starts, and need a restart`,
      { details: unknown.map((k) => ({ member: `body.properties.${k}`, message: 'is not a live setting' })) },
    );
  }
  const parsed: unknown = parseAs(schema, { ...properties }, 'body.properties');
  return typeof parsed === 'object' && parsed !== null ? { ...parsed } : {};
}
