import {
  ADAPTER_TYPES,
  AppError,
  adapterDataSchema,
  httpAdapterSettingsSchema,
  nsoAdapterSettingsSchema,
  parseAs,
  validateAgainst,
} from '@nap/contracts';
import type {
  AdapterData,
  AdapterHealth,
  AdapterRecord,
  AdapterState,
  AdapterType,
  HttpAdapterSettings,
  NsoAdapterSettings,
} from '@nap/contracts';
import type { SecretBox } from '@nap/runtime';
import { isRecord, ownValue, setOwn } from '@nap/util';
import type { AdapterDoc } from '../store/adapters';
import { checkAuthentication, serverUrl } from './integrations';
import type { OutboundTarget } from './integrations';
import { maskSettings, openSettings, sealSettings } from './sealed-settings';

/**
 * Adapters: long-lived connections to one outside system, with a lifecycle (STOPPED → STARTING →
 * RUNNING → STOPPING → STOPPED, DEAD when the connection check keeps failing, DELETED) and a real
 * periodic connection check. The admin service holds their credentials and makes every call
 * through them.
 */

type Json = Record<string, unknown>;

/** Connection settings schema of each adapter model type. */
export const ADAPTER_SETTINGS_SCHEMAS = { HTTP: httpAdapterSettingsSchema, NSO: nsoAdapterSettingsSchema } as const;

/** Methods adapter tasks call, as the original adapters name their generic request. */
export const GENERIC_METHODS = ['genericAdapterRequest', 'genericAdapterRequestNoBasePath'] as const;

const DEFAULT_INTERVAL_SECONDS = 30;
const DEFAULT_FAILURES_BEFORE_DEAD = 3;

/** What this process knows of a started adapter's connection. */
export interface AdapterRuntimeState {
  state: AdapterState;
  connection: 'ONLINE' | 'OFFLINE' | 'UNKNOWN';
  /** Epoch ms. */
  runningSince?: number;
  lastCheck?: string;
  lastError?: { message: string; at: string };
}

/** One request through an adapter, as `admin.callAdapter` carries it. */
export interface AdapterRequest {
  method: string;
  path: string;
  query?: Record<string, string> | undefined;
  headers?: Record<string, string> | undefined;
  body?: unknown;
  /** JSON pointers in `body` where the adapter's user name and password are written (a login that takes them in its body). */
  credentialsAt?: { user: string; password: string } | undefined;
  timeoutMs?: number | undefined;
}

/**
 * `body` with the adapter's user name and password written at the JSON pointers of `credentialsAt`
 * (NSO's JSON-RPC `login` takes `{ user, passwd }`), so that the service that asked never holds
 * them. The adapter must authenticate with a user name and password (Basic); each pointer's parent
 * must be an object of the body. A copy: `body` is left as it was.
 */
export function withCredentials(
  adapter: string,
  body: unknown,
  credentialsAt: { user: string; password: string },
  authentication: OutboundTarget['authentication'],
): Json {
  if (authentication?.type !== 'basic')
    throw new AppError(
      'VALIDATION_FAILED',
      `Adapter "${adapter}" authenticates with ${authentication?.type ?? 'nothing'}, not a user name and password: it has none to write into the request`,
      { details: [{ member: 'body.credentialsAt', message: 'the adapter has no user name and password' }] },
    );
  if (!isRecord(body))
    throw new AppError('VALIDATION_FAILED', 'body.credentialsAt needs a JSON object body to write the credentials into', {
      details: [{ member: 'body.body', message: 'must be an object when credentialsAt is given' }],
    });
  const out = structuredClone(body);
  const place = (pointer: string, member: string, value: string): void => {
    const segments = pointer
      .split('/')
      .slice(1)
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    const last = segments.pop() ?? '';
    let parent: unknown = out;
    // own members only: "/__proto__/x" or "/constructor/x" must not lead out of the body (into Object.prototype)
    for (const segment of segments) parent = isRecord(parent) ? ownValue(parent, segment) : undefined;
    if (!isRecord(parent))
      throw new AppError('VALIDATION_FAILED', `body.credentialsAt.${member} "${pointer}" does not point into an object of the body`, {
        details: [{ member: `body.credentialsAt.${member}`, message: 'its parent is not an object of the body' }],
      });
    setOwn(parent, last, value);
  };
  place(credentialsAt.user, 'user', authentication.username ?? '');
  place(credentialsAt.password, 'password', authentication.password ?? '');
  return out;
}

export function adapterTypeOf(doc: AdapterDoc): AdapterType {
  const props = isRecord(doc.data.properties) ? doc.data.properties : {};
  return props.type === 'NSO' ? 'NSO' : 'HTTP';
}

/** The connection settings (secrets sealed). */
export function adapterSettingsOf(doc: AdapterDoc): Json {
  const props = isRecord(doc.data.properties) ? doc.data.properties : {};
  return isRecord(props.properties) ? props.properties : {};
}

/** How the connection is checked: every `intervalMs`, a GET of `path`, DEAD after `failuresBeforeDead` failures in a row. */
export function healthcheckOf(doc: AdapterDoc): { intervalMs: number; path: string; failuresBeforeDead: number } {
  const settings = adapterSettingsOf(doc);
  const hc = isRecord(settings.healthcheck) ? settings.healthcheck : {};
  return {
    intervalMs: Math.round((typeof hc.intervalSeconds === 'number' ? hc.intervalSeconds : DEFAULT_INTERVAL_SECONDS) * 1000),
    path: typeof hc.path === 'string' ? hc.path : adapterTypeOf(doc) === 'NSO' ? '/restconf' : '/',
    failuresBeforeDead: typeof hc.failuresBeforeDead === 'number' ? hc.failuresBeforeDead : DEFAULT_FAILURES_BEFORE_DEAD,
  };
}

/** The document of a new adapter (its data already sealed), STOPPED, version 1. */
export function newAdapterDoc(name: string, data: Json, by: string, how: 'created' | 'imported', now: string): AdapterDoc {
  return {
    _id: name,
    name,
    data,
    state: 'STOPPED',
    version: 1,
    changelog: [{ version: '1', date: now, changes: `${how} by ${by}` }],
    created: now,
    createdBy: by,
    lastUpdated: now,
    lastUpdatedBy: by,
  };
}

/** What a deleted adapter leaves: its name and state only, no settings, no secrets; who deleted it (`by`) and when. */
export function adapterTombstone(current: AdapterDoc, by: string, now: string): Omit<AdapterDoc, '_id'> {
  return {
    name: current.name,
    data: { name: current.name },
    state: 'DELETED',
    version: current.version + 1,
    changelog: [],
    created: current.created,
    createdBy: current.createdBy,
    lastUpdated: now,
    lastUpdatedBy: by,
  };
}

/** Checks the connection settings against the type's schema and seals their secrets (`current`: the stored data, for `********`). */
export function sealedAdapterData(
  data: AdapterData,
  current: Json | undefined,
  secrets: SecretBox,
  /** Where the request wrote the settings: in the whole document, or alone (`PUT /adapters/:name/properties`: `body.properties`). */
  settingsAt = 'body.properties.properties.properties',
): Json {
  const type = data.properties.type;
  const settings = data.properties.properties;
  const problems = validateAgainst(ADAPTER_SETTINGS_SCHEMAS[type], settings, settingsAt);
  if (problems.length > 0)
    throw new AppError(
      'VALIDATION_FAILED',
      // each problem's message names its member already
      `Invalid ${type} adapter settings: ${problems.map((p) => p.message).join('; ')}`,
      { details: problems },
    );
  if (type === 'HTTP') checkAuthentication((settings as HttpAdapterSettings).authentication, `${settingsAt}.authentication`);
  const currentProps = isRecord(current?.properties) ? current.properties : undefined;
  const currentSettings = isRecord(currentProps?.properties) ? currentProps.properties : undefined;
  return {
    ...data,
    type: 'Adapter',
    isEncrypted: true,
    properties: {
      ...data.properties,
      id: data.name,
      brokers: data.properties.brokers ?? [],
      groups: data.properties.groups ?? [],
      properties: sealSettings(settings, secrets, currentSettings, settingsAt),
    },
  };
}

/** The adapter document as answered and exported: secrets `********`. */
export function maskedAdapterData(doc: AdapterDoc): AdapterData {
  const data = parseAs(adapterDataSchema, doc.data);
  return { ...data, properties: { ...data.properties, properties: maskSettings(data.properties.properties) } };
}

/** The adapter as answered: its document and what this process knows of its connection. */
export function adapterView(doc: AdapterDoc, runtime: AdapterRuntimeState | undefined): AdapterRecord {
  const state: AdapterState = doc.state === 'DELETED' ? 'DELETED' : (runtime?.state ?? 'STOPPED');
  return {
    metadata: { isActive: state === 'RUNNING', state, connection: runtime?.connection ?? 'UNKNOWN', version: doc.version },
    data: doc.state === 'DELETED' ? { name: doc.name, properties: { type: 'HTTP', properties: {} } } : maskedAdapterData(doc),
  };
}

/** The health of an adapter as answered: its connection as `{ state }` (the platform's shape, which ipctl decodes). */
export type AdapterHealthView = Omit<AdapterHealth, 'connection'> & { connection: { state: AdapterHealth['connection'] } };

/** The health of an adapter at `now` (epoch ms). */
export function adapterHealth(doc: AdapterDoc, runtime: AdapterRuntimeState | undefined, now: number): AdapterHealthView {
  const state: AdapterState = doc.state === 'DELETED' ? 'DELETED' : (runtime?.state ?? 'STOPPED');
  return {
    name: doc.name,
    ...(doc.state !== 'DELETED' ? { type: adapterTypeOf(doc) } : {}),
    state,
    connection: { state: runtime?.connection ?? 'UNKNOWN' },
    uptime: runtime?.runningSince !== undefined && state === 'RUNNING' ? (now - runtime.runningSince) / 1000 : 0,
    lastCheck: runtime?.lastCheck ?? null,
    lastError: runtime?.lastError ?? null,
  };
}

/** `GET /schema/adapters/:name`: the settings schema of an adapter type. */
export function adapterSettingsSchema(type: AdapterType): Json {
  return { ...(ADAPTER_SETTINGS_SCHEMAS[type] as unknown as Json), title: `Connection settings of a ${type} adapter` };
}

export function isAdapterType(name: string): name is AdapterType {
  return (ADAPTER_TYPES as readonly string[]).includes(name);
}

/** `GET /adapters/brokers/mapping`: broker → the adapters that name it. */
export function brokerMapOf(docs: AdapterDoc[]): Record<string, string[]> {
  const map: Record<string, string[]> = {};
  for (const doc of docs) {
    const props = isRecord(doc.data.properties) ? doc.data.properties : {};
    for (const broker of Array.isArray(props.brokers) ? props.brokers : []) {
      const name = String(broker);
      // a broker may be named constructor or __proto__: only the map's own members are its entries
      const adapters = ownValue(map, name);
      if (adapters === undefined) setOwn(map, name, [doc.name]);
      else adapters.push(doc.name);
    }
  }
  return map;
}

/** Names of the adapters a task's app answers to: by name, or by model (case-insensitive). */
export function adaptersAnsweringTo(app: string, adapters: { name: string; model: unknown }[]): string[] {
  const lower = app.toLowerCase();
  const byName = adapters.filter((d) => d.name.toLowerCase() === lower);
  if (byName.length > 0) return byName.map((d) => d.name);
  return adapters.filter((d) => typeof d.model === 'string' && d.model.toLowerCase() === lower).map((d) => d.name);
}

/** Where calls through the adapter go, with its secrets opened (`noBasePath`: from the server's root). */
export function adapterTarget(doc: AdapterDoc, secrets: SecretBox, noBasePath = false): OutboundTarget {
  const opened = openSettings(adapterSettingsOf(doc), secrets);
  const cacheKey = `adapter:${doc.name}@${doc.version}`;
  if (adapterTypeOf(doc) === 'NSO') {
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

/** The path (with its query), headers, body and bound of a request through an adapter (`defaultTimeoutMs`: when neither names one). */
export function outboundOf(
  req: AdapterRequest,
  settings: Json,
  defaultTimeoutMs: number,
): { path: string; headers: Record<string, string>; body: string | undefined; timeoutMs: number } {
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
  const timeoutMs = req.timeoutMs ?? (typeof settings.timeoutMs === 'number' ? settings.timeoutMs : defaultTimeoutMs);
  return { path, headers, body, timeoutMs };
}

/**
 * A workflow task addressed to an adapter: the generic request of the original adapters,
 * `genericAdapterRequest` (path below the base path) or `genericAdapterRequestNoBasePath`, with
 * incoming `{ uriPath, restMethod, queryData, requestBody, addlHeaders }`.
 */
export function genericAdapterRequest(
  name: string,
  method: string,
  incoming: Json,
  timeoutMs: number | undefined,
): { request: AdapterRequest; noBasePath: boolean } {
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
  if (isRecord(incoming.queryData))
    for (const [k, v] of Object.entries(incoming.queryData)) setOwn(query, k, typeof v === 'string' ? v : JSON.stringify(v));
  const headers: Record<string, string> = {};
  if (isRecord(incoming.addlHeaders)) for (const [k, v] of Object.entries(incoming.addlHeaders)) setOwn(headers, k, String(v));
  return {
    request: { method: restMethod, path: uriPath, query, headers, body: incoming.requestBody, timeoutMs },
    noBasePath: method === 'genericAdapterRequestNoBasePath',
  };
}
