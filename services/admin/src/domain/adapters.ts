import {
  ADAPTER_TYPES,
  AppError,
  isLogLevel,
  adapterDataSchema,
  hasCode,
  httpAdapterSettingsSchema,
  nsoAdapterSettingsSchema,
  parseAs,
  validateAgainst,
} from '@nap/contracts';
import type {
  AdapterChangedEvent,
  AdapterData,
  AdapterHealth,
  AdapterRecord,
  AdapterState,
  AdapterType,
  HttpAdapterSettings,
  LoggerProps,
  NsoAdapterSettings,
  OutboundResponse,
  ListQueryOptions,
} from '@nap/contracts';
import type { SecretBox } from '@nap/runtime';
import { toListQuery } from '@nap/store';
import type { Collection, Store } from '@nap/store';
import { pinoLevel } from '@nap/bus';
import type { Logger } from '@nap/telemetry';
import type { OutboundHttp, OutboundTarget } from '../clients/outbound-http';
import type { AdapterDoc } from '../store/records';
import { checkAuthentication, DEFAULT_CALL_TIMEOUT_MS, serverUrl } from './integrations';
import { withLevel } from './logger-props';
import { maskSettings, openSettings, sealSettings } from './sealed-settings';

/** Publishes `adapterChanged` (entity adapter, id the adapter name). */
export type EmitAdapterEvent = (name: string, payload: AdapterChangedEvent) => Promise<void>;

/** Connection settings schema of each adapter model type. */
export const ADAPTER_SETTINGS_SCHEMAS = { HTTP: httpAdapterSettingsSchema, NSO: nsoAdapterSettingsSchema } as const;

const DEFAULT_INTERVAL_SECONDS = 30;
const DEFAULT_FAILURES_BEFORE_DEAD = 3;
/** Bound of one connection check, ms (and never more than the interval). */
const CHECK_TIMEOUT_MS = 5_000;
/** Methods adapter tasks call, as the original adapters name their generic request. */
const GENERIC_METHODS = ['genericAdapterRequest', 'genericAdapterRequestNoBasePath'] as const;

type Json = Record<string, unknown>;

/** What this process knows of a started adapter: state, connection, the check timer. */
interface Runtime {
  state: AdapterState;
  connection: 'ONLINE' | 'OFFLINE' | 'UNKNOWN';
  runningSince?: number;
  lastCheck?: string;
  lastError?: { message: string; at: string };
  failures: number;
  timer?: NodeJS.Timeout;
  /** The document version the runtime was started with. */
  version: number;
  checking?: Promise<void>;
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function invalid(member: string, message: string): AppError {
  return new AppError('VALIDATION_FAILED', `${member} ${message}`, { details: [{ member, message }] });
}

/**
 * Adapters: long-lived connections to one outside system, with a lifecycle (STOPPED → STARTING →
 * RUNNING → STOPPING → STOPPED, DEAD when the connection check keeps failing, DELETED) and a real
 * periodic connection check (an HTTP GET of the health path). The admin service holds their
 * credentials and makes every call through them.
 */
export class AdapterDomain {
  private readonly adapters: Collection<AdapterDoc>;
  private readonly runtimes = new Map<string, Runtime>();

  constructor(
    store: Store,
    private readonly secrets: SecretBox,
    private readonly http: OutboundHttp,
    private readonly emit: EmitAdapterEvent,
    private readonly log: Logger,
    /** The bound of a call that names none (the active profile's integrationProps.timeout; it changes while the service runs). */
    private readonly calls: { readonly integrationTimeoutMs: number } = { integrationTimeoutMs: DEFAULT_CALL_TIMEOUT_MS },
  ) {
    this.adapters = store.collection<AdapterDoc>('adapters');
  }

  /** Starts the monitors of the adapters that were RUNNING when the service last stopped. */
  async resume(): Promise<void> {
    for (const doc of await this.adapters.find({ state: 'RUNNING' })) this.launch(doc);
  }

  /** Stops every monitor (the service stops); the stored desired states stay. */
  async shutdown(): Promise<void> {
    for (const rt of this.runtimes.values()) if (rt.timer) clearInterval(rt.timer);
    await Promise.all([...this.runtimes.values()].map((rt) => rt.checking));
    this.runtimes.clear();
  }

  // ---- documents ----

  async create(input: AdapterData, by: string, how: 'created' | 'imported'): Promise<AdapterRecord> {
    const existing = await this.adapters.findOne({ _id: input.name });
    if (existing !== null && existing.state !== 'DELETED')
      throw new AppError('ADAPTER_ALREADY_EXISTS', `An adapter "${input.name}" exists`);
    const now = new Date().toISOString();
    const doc: AdapterDoc = {
      _id: input.name,
      name: input.name,
      data: this.sealedData(input, undefined),
      state: 'STOPPED',
      version: 1,
      changelog: [{ version: '1', date: now, changes: `${how} by ${by}` }],
      created: now,
      createdBy: by,
      lastUpdated: now,
      lastUpdatedBy: by,
    };
    try {
      if (existing !== null) await this.adapters.replaceOne({ _id: input.name, state: 'DELETED' }, doc);
      else await this.adapters.insertOne(doc);
    } catch (err) {
      if (hasCode(err, 'STORE_DUPLICATE_KEY'))
        throw new AppError('ADAPTER_ALREADY_EXISTS', `An adapter "${input.name}" exists`, { cause: err });
      throw err;
    }
    this.runtimes.delete(input.name);
    await this.changed(input.name, 'created', 'STOPPED');
    return this.view(doc);
  }

  /** Replaces the adapter document (`PUT /adapters/:name`), or only its connection settings (`…/properties`). A running adapter restarts with it. */
  async update(name: string, change: { data: AdapterData } | { settings: Json }, by: string): Promise<AdapterRecord> {
    const current = await this.document(name);
    let data: AdapterData;
    if ('data' in change) {
      if (change.data.name !== name)
        throw invalid('body.properties.name', `is "${change.data.name}"; an adapter keeps its name ("${name}")`);
      data = change.data;
    } else {
      const currentData = parseAs(adapterDataSchema, current.data);
      data = { ...currentData, properties: { ...currentData.properties, properties: change.settings } };
    }
    const now = new Date().toISOString();
    const version = current.version + 1;
    const updated = await this.adapters.findOneAndUpdate(
      { _id: name, version: current.version },
      {
        $set: { data: this.sealedData(data, current.data), version, lastUpdated: now, lastUpdatedBy: by },
        $push: {
          changelog: {
            version: String(version),
            date: now,
            changes: `${'data' in change ? 'document' : 'connection settings'} updated by ${by}`,
          },
        },
      },
      { returnDocument: 'after' },
    );
    if (updated === null) throw new AppError('CONFLICT', `Adapter "${name}" changed meanwhile; read it again and repeat the change`);
    await this.changed(name, 'updated', this.runtimes.get(name)?.state ?? updated.state);
    if (updated.state === 'RUNNING') {
      this.halt(name);
      this.launch(updated);
    }
    return this.view(updated);
  }

  async remove(name: string): Promise<AdapterRecord> {
    const current = await this.document(name);
    this.halt(name);
    await this.runtimes.get(name)?.checking;
    this.runtimes.delete(name);
    const now = new Date().toISOString();
    // the tombstone keeps the name and state only: no settings, no secrets
    await this.adapters.replaceOne(
      { _id: name },
      {
        name,
        data: { name },
        state: 'DELETED',
        version: current.version + 1,
        changelog: [],
        created: current.created,
        createdBy: current.createdBy,
        lastUpdated: now,
        lastUpdatedBy: now,
      },
    );
    await this.changed(name, 'deleted', 'DELETED');
    return this.view(current);
  }

  async get(name: string): Promise<AdapterRecord> {
    return this.view(await this.document(name));
  }

  /** The adapter document as exported: secrets `********`. */
  async exportData(name: string): Promise<AdapterData> {
    return this.maskedData(await this.document(name));
  }

  async list(query: ListQueryOptions): Promise<{ results: AdapterRecord[]; total: number }> {
    const q = toListQuery(query, {
      filter: ['name', 'data.model', 'data.properties.type'],
      sort: ['name', 'created', 'lastUpdated'],
      defaultSort: { name: 1 },
    });
    const filter = { $and: [q.filter, { state: { $ne: 'DELETED' } }] };
    const [docs, total] = await Promise.all([
      this.adapters.find(filter, { sort: q.sort, skip: q.skip, limit: q.limit }),
      this.adapters.countDocuments(filter),
    ]);
    return { results: docs.map((d) => this.view(d)), total };
  }

  async changelogs(name: string): Promise<{ results: { version: string; date: string; changes: string }[]; total: number }> {
    const doc = await this.document(name);
    const results = [...doc.changelog].reverse();
    return { results, total: results.length };
  }

  async setLogLevel(name: string, level: string, transport: 'console' | 'file' | 'syslog' | undefined): Promise<LoggerProps> {
    const doc = await this.document(name);
    const next = withLevel(isObject(doc.data.loggerProps) ? doc.data.loggerProps : {}, level, transport);
    await this.adapters.updateOne({ _id: name }, { $set: { 'data.loggerProps': next } });
    return next;
  }

  async brokerMap(): Promise<Record<string, string[]>> {
    const map: Record<string, string[]> = {};
    for (const doc of await this.adapters.find({ state: { $ne: 'DELETED' } }, { sort: { name: 1 } })) {
      const props = isObject(doc.data.properties) ? doc.data.properties : {};
      for (const broker of Array.isArray(props.brokers) ? props.brokers : []) (map[String(broker)] ??= []).push(doc.name);
    }
    return map;
  }

  /** `GET /schema/adapters/:name`: the settings schema of the adapter's type (`:name` may be a type). */
  async settingsSchema(name: string): Promise<Json> {
    const type = (ADAPTER_TYPES as readonly string[]).includes(name) ? (name as AdapterType) : this.typeOf(await this.document(name));
    return { ...(ADAPTER_SETTINGS_SCHEMAS[type] as unknown as Json), title: `Connection settings of a ${type} adapter` };
  }

  // ---- lifecycle ----

  async start(name: string): Promise<{ name: string; state: string }> {
    const doc = await this.anyDocument(name);
    if (doc.state === 'DELETED') throw new AppError('ADAPTER_STATE_CONFLICT', `Adapter "${name}" is DELETED; create it again to use it`);
    const rt = this.runtimes.get(name);
    if (rt !== undefined && rt.state !== 'STOPPED' && rt.state !== 'DEAD') return { name, state: rt.state };
    await this.adapters.updateOne({ _id: name }, { $set: { state: 'RUNNING' } });
    return { name, state: this.launch({ ...doc, state: 'RUNNING' }) };
  }

  async stop(name: string): Promise<{ name: string; state: string }> {
    const doc = await this.anyDocument(name);
    if (doc.state === 'DELETED') throw new AppError('ADAPTER_STATE_CONFLICT', `Adapter "${name}" is DELETED`);
    await this.adapters.updateOne({ _id: name }, { $set: { state: 'STOPPED' } });
    const rt = this.runtimes.get(name);
    if (rt === undefined || rt.state === 'STOPPED') return { name, state: 'STOPPED' };
    this.halt(name);
    rt.state = 'STOPPING';
    void this.changed(name, 'state', 'STOPPING');
    void (async () => {
      await rt.checking;
      if (this.runtimes.get(name) !== rt || rt.state !== 'STOPPING') return;
      rt.state = 'STOPPED';
      rt.connection = 'UNKNOWN';
      delete rt.runningSince;
      await this.changed(name, 'state', 'STOPPED');
    })();
    return { name, state: 'STOPPING' };
  }

  async restart(name: string): Promise<{ name: string; state: string }> {
    const doc = await this.anyDocument(name);
    if (doc.state === 'DELETED') throw new AppError('ADAPTER_STATE_CONFLICT', `Adapter "${name}" is DELETED; create it again to use it`);
    this.halt(name);
    await this.runtimes.get(name)?.checking;
    this.runtimes.delete(name);
    await this.adapters.updateOne({ _id: name }, { $set: { state: 'RUNNING' } });
    return { name, state: this.launch({ ...doc, state: 'RUNNING' }) };
  }

  async health(name: string): Promise<AdapterHealth> {
    return this.healthOf(await this.anyDocument(name));
  }

  async healthAll(query: ListQueryOptions): Promise<{ results: AdapterHealth[]; total: number }> {
    const q = toListQuery(query, { filter: ['name', 'state'], sort: ['name'], defaultSort: { name: 1 } });
    const docs = await this.adapters.find(q.filter, { sort: q.sort });
    const all = docs.map((d) => this.healthOf(d));
    return { results: all.slice(q.skip, q.skip + q.limit), total: all.length };
  }

  private healthOf(doc: AdapterDoc): AdapterHealth {
    const rt = this.runtimes.get(doc.name);
    const state: AdapterState = doc.state === 'DELETED' ? 'DELETED' : (rt?.state ?? 'STOPPED');
    return {
      name: doc.name,
      ...(doc.state !== 'DELETED' ? { type: this.typeOf(doc) } : {}),
      state,
      connection: rt?.connection ?? 'UNKNOWN',
      uptime: rt?.runningSince !== undefined && state === 'RUNNING' ? (Date.now() - rt.runningSince) / 1000 : 0,
      lastCheck: rt?.lastCheck ?? null,
      lastError: rt?.lastError ?? null,
    };
  }

  /** Starts the runtime of a document whose desired state is RUNNING: STARTING until the first check, then RUNNING. */
  private launch(doc: AdapterDoc): AdapterState {
    const settings = this.settingsOf(doc);
    const hc = isObject(settings.healthcheck) ? settings.healthcheck : {};
    const intervalMs = Math.round((typeof hc.intervalSeconds === 'number' ? hc.intervalSeconds : DEFAULT_INTERVAL_SECONDS) * 1000);
    const rt: Runtime = { state: 'STARTING', connection: 'UNKNOWN', failures: 0, version: doc.version };
    this.runtimes.set(doc.name, rt);
    void this.changed(doc.name, 'state', 'STARTING');
    const tick = () => {
      if (rt.checking !== undefined) return;
      rt.checking = this.check(doc, rt, Math.min(intervalMs, CHECK_TIMEOUT_MS)).finally(() => delete rt.checking);
    };
    rt.timer = setInterval(tick, intervalMs);
    rt.timer.unref();
    tick();
    return 'STARTING';
  }

  private halt(name: string): void {
    const rt = this.runtimes.get(name);
    if (rt?.timer !== undefined) {
      clearInterval(rt.timer);
      delete rt.timer;
    }
  }

  /** One connection check: ONLINE when the system answers the health path (below 500, and not refusing the credentials). */
  private async check(doc: AdapterDoc, rt: Runtime, timeoutMs: number): Promise<void> {
    const settings = this.settingsOf(doc);
    const hc = isObject(settings.healthcheck) ? settings.healthcheck : {};
    const path = typeof hc.path === 'string' ? hc.path : this.typeOf(doc) === 'NSO' ? '/restconf' : '/';
    const failuresBeforeDead = typeof hc.failuresBeforeDead === 'number' ? hc.failuresBeforeDead : DEFAULT_FAILURES_BEFORE_DEAD;
    let problem: string | undefined;
    try {
      const answer = await this.http.send(this.target(doc, true), { method: 'GET', path, timeoutMs });
      if (answer.status >= 500) problem = `the health path ${path} answered ${answer.status}`;
      else if (answer.status === 401 || answer.status === 403)
        problem = `the system refused the adapter's credentials (${answer.status} on ${path})`;
    } catch (err) {
      problem = err instanceof Error ? err.message : String(err);
    }
    if (this.runtimes.get(doc.name) !== rt || rt.state === 'STOPPING' || rt.state === 'STOPPED' || rt.state === 'DEAD') return;
    const now = new Date().toISOString();
    rt.lastCheck = now;
    const before = rt.state;
    if (problem === undefined) {
      rt.failures = 0;
      rt.connection = 'ONLINE';
    } else {
      rt.failures += 1;
      rt.connection = 'OFFLINE';
      rt.lastError = { message: problem, at: now };
      this.loggerOf(doc).warn({ adapter: doc.name, failures: rt.failures }, `Adapter connection check failed: ${problem}`);
    }
    if (rt.state === 'STARTING') {
      rt.state = 'RUNNING';
      rt.runningSince = Date.now();
    }
    if (rt.failures >= failuresBeforeDead) {
      rt.state = 'DEAD';
      delete rt.runningSince;
      if (rt.timer !== undefined) clearInterval(rt.timer);
      delete rt.timer;
    }
    if (rt.state !== before) await this.changed(doc.name, 'state', rt.state);
  }

  // ---- calls ----

  /** One request through a RUNNING adapter, its authentication added here; answers whatever the system answered. */
  async call(
    name: string,
    req: {
      method: string;
      path: string;
      query?: Record<string, string> | undefined;
      headers?: Record<string, string> | undefined;
      body?: unknown;
      timeoutMs?: number | undefined;
    },
    noBasePath = false,
  ): Promise<OutboundResponse> {
    const doc = await this.document(name);
    const rt = this.runtimes.get(name);
    if (rt?.state !== 'RUNNING')
      throw new AppError(
        'ADAPTER_NOT_RUNNING',
        `Adapter "${name}" is ${rt?.state ?? 'STOPPED'}, not RUNNING; start it (or restart it once its system answers)`,
      );
    const settings = this.settingsOf(doc);
    const headers = { ...(req.headers ?? {}) };
    let body: string | undefined;
    if (req.body !== undefined && req.body !== null) {
      if (typeof req.body === 'string') body = req.body;
      else {
        body = JSON.stringify(req.body);
        if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
      }
    }
    const query = req.query !== undefined && Object.keys(req.query).length > 0 ? new URLSearchParams(req.query).toString() : '';
    const path = query === '' ? req.path : `${req.path}${req.path.includes('?') ? '&' : '?'}${query}`;
    const timeoutMs = req.timeoutMs ?? (typeof settings.timeoutMs === 'number' ? settings.timeoutMs : this.calls.integrationTimeoutMs);
    const started = Date.now();
    const answer = await this.http.send(this.target(doc, noBasePath), { method: req.method, path, headers, body, timeoutMs });
    this.loggerOf(doc).debug(
      { adapter: name, method: req.method, path: req.path, status: answer.status, ms: Date.now() - started },
      'Adapter call answered',
    );
    return answer;
  }

  /** The adapter's own logger: at the level of its loggerProps (`PUT /adapters/:name/loglevel`), else the service's. */
  private loggerOf(doc: AdapterDoc): Logger {
    const props = isObject(doc.data.loggerProps) ? doc.data.loggerProps : {};
    const level = [props.console_level, props.log_level].find(isLogLevel);
    return level === undefined ? this.log : this.log.child({}, { level: pinoLevel(level) });
  }

  /** Names of the adapters a task's app answers to: by name, or by model (case-insensitive); deleted ones never. */
  async adaptersFor(app: string): Promise<string[]> {
    const lower = app.toLowerCase();
    const docs = await this.adapters.find({ state: { $ne: 'DELETED' } }, { projection: { name: 1, 'data.model': 1 } });
    const byName = docs.filter((d) => d.name.toLowerCase() === lower);
    if (byName.length > 0) return byName.map((d) => d.name);
    return docs.filter((d) => typeof d.data.model === 'string' && d.data.model.toLowerCase() === lower).map((d) => d.name);
  }

  /**
   * A workflow task addressed to an adapter: the generic request of the original adapters,
   * `genericAdapterRequest` (path below the base path) or `genericAdapterRequestNoBasePath`, with
   * incoming `{ uriPath, restMethod, queryData, requestBody, addlHeaders }`. Non-2xx: INTEGRATION_CALL_FAILED.
   */
  async runTask(name: string, method: string, incoming: Json, timeoutMs: number | undefined): Promise<OutboundResponse> {
    if (!(GENERIC_METHODS as readonly string[]).includes(method)) {
      throw new AppError(
        'TASK_METHOD_UNKNOWN',
        `Adapter "${name}" has no method "${method}"; adapters answer ${GENERIC_METHODS.join(' and ')}`,
      );
    }
    const uriPath = incoming.uriPath;
    if (typeof uriPath !== 'string' || uriPath === '')
      throw new AppError('TASK_INPUT_INVALID', `Adapter "${name}" ${method}: incoming.uriPath is required`, {
        details: [{ member: 'incoming.uriPath', message: 'is required' }],
      });
    const restMethod = typeof incoming.restMethod === 'string' ? incoming.restMethod.toUpperCase() : 'GET';
    const query: Record<string, string> = {};
    if (isObject(incoming.queryData))
      for (const [k, v] of Object.entries(incoming.queryData)) query[k] = typeof v === 'string' ? v : JSON.stringify(v);
    const headers: Record<string, string> = {};
    if (isObject(incoming.addlHeaders)) for (const [k, v] of Object.entries(incoming.addlHeaders)) headers[k] = String(v);
    const answer = await this.call(
      name,
      { method: restMethod, path: uriPath, query, headers, body: incoming.requestBody, timeoutMs },
      method === 'genericAdapterRequestNoBasePath',
    );
    if (answer.status < 200 || answer.status >= 300)
      throw new AppError('INTEGRATION_CALL_FAILED', `Adapter "${name}" answered ${answer.status} to ${restMethod} ${uriPath}`, {
        details: answer,
      });
    return answer;
  }

  // ---- helpers ----

  /** Where calls through the adapter go, with its secrets opened (`noBasePath`: from the server's root). */
  private target(doc: AdapterDoc, noBasePath = false): OutboundTarget {
    const opened = openSettings(this.settingsOf(doc), this.secrets);
    const cacheKey = `adapter:${doc.name}@${doc.version}`;
    if (this.typeOf(doc) === 'NSO') {
      const s = opened as NsoAdapterSettings;
      const https = s.ssl?.enabled === true;
      return {
        label: `adapter "${doc.name}"`,
        cacheKey,
        baseUrl: `${https ? 'https' : 'http'}://${s.http.host}:${s.http.port ?? (https ? 8888 : 8080)}`,
        authentication: { type: 'basic', username: s.credentials.user, password: s.credentials.passwd },
        tls: { rejectUnauthorized: s.ssl?.acceptInvalidCerts !== true, ca: s.ssl?.ca },
      };
    }
    const s = opened as HttpAdapterSettings;
    const server = noBasePath ? { ...s.server, base_path: '' } : s.server;
    return { label: `adapter "${doc.name}"`, cacheKey, baseUrl: serverUrl({ server }), authentication: s.authentication, tls: s.tls };
  }

  private typeOf(doc: AdapterDoc): AdapterType {
    const props = isObject(doc.data.properties) ? doc.data.properties : {};
    return props.type === 'NSO' ? 'NSO' : 'HTTP';
  }

  private settingsOf(doc: AdapterDoc): Json {
    const props = isObject(doc.data.properties) ? doc.data.properties : {};
    return isObject(props.properties) ? props.properties : {};
  }

  /** Checks the connection settings against the type's schema and seals their secrets. */
  private sealedData(data: AdapterData, current: Json | undefined): Json {
    const type = data.properties.type;
    const settings = data.properties.properties;
    const problems = validateAgainst(ADAPTER_SETTINGS_SCHEMAS[type], settings, 'body.properties.properties.properties');
    if (problems.length > 0)
      throw new AppError(
        'VALIDATION_FAILED',
        `Invalid ${type} adapter settings: ${problems.map((p) => `${p.member} ${p.message}`).join('; ')}`,
        { details: problems },
      );
    if (type === 'HTTP')
      checkAuthentication((settings as HttpAdapterSettings).authentication, 'body.properties.properties.properties.authentication');
    const currentProps = isObject(current?.properties) ? current.properties : undefined;
    const currentSettings = isObject(currentProps?.properties) ? currentProps.properties : undefined;
    return {
      ...data,
      type: 'Adapter',
      isEncrypted: true,
      properties: {
        ...data.properties,
        id: data.name,
        brokers: data.properties.brokers ?? [],
        groups: data.properties.groups ?? [],
        properties: sealSettings(settings, this.secrets, currentSettings, 'body.properties.properties.properties'),
      },
    };
  }

  private maskedData(doc: AdapterDoc): AdapterData {
    const data = parseAs(adapterDataSchema, doc.data);
    return { ...data, properties: { ...data.properties, properties: maskSettings(data.properties.properties) } };
  }

  private view(doc: AdapterDoc): AdapterRecord {
    const rt = this.runtimes.get(doc.name);
    const state: AdapterState = doc.state === 'DELETED' ? 'DELETED' : (rt?.state ?? 'STOPPED');
    return {
      metadata: { isActive: state === 'RUNNING', state, connection: rt?.connection ?? 'UNKNOWN', version: doc.version },
      data: doc.state === 'DELETED' ? { name: doc.name, properties: { type: 'HTTP', properties: {} } } : this.maskedData(doc),
    };
  }

  /** A live adapter's document; 404 for unknown and deleted ones. */
  private async document(name: string): Promise<AdapterDoc> {
    const doc = await this.anyDocument(name);
    if (doc.state === 'DELETED') throw new AppError('ADAPTER_NOT_FOUND', `No adapter "${name}" (it was deleted)`);
    return doc;
  }

  /** The document, deleted or not; 404 when there never was one. */
  private async anyDocument(name: string): Promise<AdapterDoc> {
    const doc = await this.adapters.findOne({ _id: name });
    if (doc === null) throw new AppError('ADAPTER_NOT_FOUND', `No adapter "${name}"`);
    return doc;
  }

  private async changed(name: string, reason: AdapterChangedEvent['reason'], state: string): Promise<void> {
    try {
      await this.emit(name, { name, reason, state });
    } catch (err) {
      this.log.error({ err, adapter: name }, 'Could not publish adapterChanged');
    }
  }
}
