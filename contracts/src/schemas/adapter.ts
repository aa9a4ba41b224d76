import type { Static } from '@sinclair/typebox';
import {
  anyObject,
  anyValue,
  bool,
  closed,
  describedPattern,
  embed,
  int,
  mapOf,
  name,
  nullable,
  num,
  obj,
  oneOf,
  open,
  str,
  strings,
  withId,
} from './common';
import { authenticationSchema, loggerPropsSchema, serverSettingsSchema, tlsSettingsSchema } from './integration';

/** Adapter model types (`GET /adapter-models/types`): a generic HTTP system, and the orchestrator (NSO) that orch-proxy uses. */
export const ADAPTER_TYPES = ['HTTP', 'NSO'] as const;
/** An adapter model type. */
export type AdapterType = (typeof ADAPTER_TYPES)[number];

/** Lifecycle states of an adapter. */
export const ADAPTER_STATES = ['STOPPED', 'STARTING', 'RUNNING', 'STOPPING', 'DEAD', 'DELETED'] as const;
/** A lifecycle state of an adapter. */
export type AdapterState = (typeof ADAPTER_STATES)[number];

/** What the periodic connection check found: ONLINE, OFFLINE, or UNKNOWN before the first check (and while stopped). */
export const ADAPTER_CONNECTIONS = ['ONLINE', 'OFFLINE', 'UNKNOWN'] as const;

/** The periodic connection check: an HTTP GET of `path` every `intervalSeconds`; any answer below 500 is ONLINE. */
export const healthcheckSettingsSchema = withId(
  'nap:schemas/healthcheck-settings',
  closed({
    path: str({ description: "path requested from the server's root (not below base_path); default / (HTTP) or /restconf (NSO)" }),
    intervalSeconds: num({ minimum: 0.05, maximum: 3600, description: 'default 30' }),
    failuresBeforeDead: int({
      minimum: 1,
      maximum: 100,
      description: 'consecutive failed checks that make a RUNNING adapter DEAD; default 3',
    }),
  }),
);

/** Connection settings of an adapter of type HTTP (`data.properties.properties`). */
export const httpAdapterSettingsSchema = withId(
  'nap:schemas/http-adapter-settings',
  closed(
    {
      server: embed(serverSettingsSchema),
      authentication: embed(authenticationSchema),
      tls: embed(tlsSettingsSchema),
      healthcheck: embed(healthcheckSettingsSchema),
      timeoutMs: int({ minimum: 1, maximum: 600_000, description: 'bound of one call when the caller gives none; default 30000' }),
    },
    ['server'],
  ),
);
/** Connection settings of an HTTP adapter. */
export type HttpAdapterSettings = Static<typeof httpAdapterSettingsSchema>;

/** Connection settings of an adapter of type NSO, as the original NSO adapter keeps them. */
export const nsoAdapterSettingsSchema = withId(
  'nap:schemas/nso-adapter-settings',
  closed(
    {
      http: closed({ host: name('NSO host'), port: int({ minimum: 1, maximum: 65535 }) }, ['host']),
      ssl: closed({ enabled: bool(), acceptInvalidCerts: bool(), ca: str({ description: 'PEM' }) }),
      credentials: closed({ user: name(), passwd: str({ description: 'sealed at rest, answered as ********' }) }, ['user', 'passwd']),
      healthcheck: embed(healthcheckSettingsSchema),
      timeoutMs: int({ minimum: 1, maximum: 600_000 }),
    },
    ['http', 'credentials'],
  ),
);
/** Connection settings of an NSO adapter. */
export type NsoAdapterSettings = Static<typeof nsoAdapterSettingsSchema>;

/** The adapter document (`data` of the record; `properties` of create, import and update bodies). */
export const adapterDataSchema = withId(
  'nap:schemas/adapter-data',
  open(
    {
      name: name('adapter name, unique'),
      type: str({ description: 'always Adapter' }),
      model: str({ description: 'the adapter model, for example @itentialopensource/adapter-nso; free text' }),
      properties: open(
        {
          id: str({ description: 'the adapter name again, as the original keeps it' }),
          type: oneOf(ADAPTER_TYPES, { description: 'the adapter model type' }),
          brokers: strings(),
          groups: strings({ description: 'group ids' }),
          properties: anyObject('connection settings of the type: GET /schema/adapters/:name'),
        },
        ['type', 'properties'],
      ),
      loggerProps: embed(loggerPropsSchema),
      isEncrypted: bool(),
    },
    ['name', 'properties'],
  ),
);
/** The adapter document. */
export type AdapterData = Static<typeof adapterDataSchema>;

/** An adapter record: `{ metadata, data }`, secrets masked. */
export const adapterRecordSchema = withId(
  'nap:schemas/adapter-record',
  open(
    {
      metadata: open(
        { isActive: bool(), state: oneOf(ADAPTER_STATES), connection: oneOf(ADAPTER_CONNECTIONS), version: int({ minimum: 1 }) },
        ['isActive', 'state'],
      ),
      data: embed(adapterDataSchema),
    },
    ['metadata', 'data'],
  ),
);
/** An adapter record. */
export type AdapterRecord = Static<typeof adapterRecordSchema>;

/** Health of one adapter (`GET /health/adapters[/:name]`). */
export const adapterHealthSchema = withId(
  'nap:schemas/adapter-health',
  obj(
    {
      name: str(),
      type: oneOf(ADAPTER_TYPES),
      state: oneOf(ADAPTER_STATES),
      connection: oneOf(ADAPTER_CONNECTIONS),
      uptime: num({ minimum: 0, description: 'seconds since the adapter last went RUNNING; 0 when not running' }),
      lastCheck: nullable(str({ description: 'ISO 8601 time of the last connection check' })),
      lastError: nullable(obj({ message: str(), at: str() }, ['message', 'at'])),
    },
    ['name', 'state', 'connection', 'uptime', 'lastError'],
  ),
);
/** Health of one adapter. */
export type AdapterHealth = Static<typeof adapterHealthSchema>;

/** HTTP methods an outside call may use. */
export const OUTBOUND_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;

/** What an outside system answered: status, headers (lower-case names) and the body parsed as JSON when it says so, otherwise text. */
export const outboundResponseSchema = withId(
  'nap:schemas/outbound-response',
  obj({ status: int({ minimum: 100, maximum: 599 }), headers: mapOf(str()), body: anyValue() }, ['status', 'headers']),
);
/** What an outside system answered. */
export type OutboundResponse = Static<typeof outboundResponseSchema>;

/** A JSON pointer (RFC 6901) below the root: `/params/passwd`. */
const JSON_POINTER = describedPattern('^(/([^~/]|~[01])*)+$', 'a JSON pointer below the root, such as /params/passwd');

/** Body of the bus-only `admin.callAdapter`: one HTTP request through a RUNNING adapter, which adds its authentication. */
export const callAdapterBodySchema = withId(
  'nap:schemas/call-adapter-body',
  closed(
    {
      adapter: name('adapter name'),
      method: oneOf(OUTBOUND_METHODS),
      path: name("path below the adapter's server (HTTP: below base_path), with its query string if any"),
      query: mapOf(str(), { description: 'query members added to the path' }),
      headers: mapOf(str(), { description: "request headers; the adapter's authentication replaces any authorization header" }),
      body: anyValue({ description: 'JSON body; a string is sent as it is' }),
      credentialsAt: closed(
        {
          user: str({ pattern: JSON_POINTER, description: "JSON pointer in the body where admin writes the adapter's user name" }),
          password: str({ pattern: JSON_POINTER, description: "JSON pointer in the body where admin writes the adapter's password" }),
        },
        ['user', 'password'],
        {
          description:
            "a login that takes the credentials in its body (NSO's JSON-RPC login takes { user, passwd }): admin writes the adapter's own user name and password there, so the caller never holds them",
        },
      ),
      timeoutMs: int({ minimum: 1, maximum: 600_000 }),
    },
    ['adapter', 'method', 'path'],
  ),
);

/** Body of the bus-only `admin.runTask`: a workflow task whose app is an integration or an adapter. */
export const runTaskBodySchema = withId(
  'nap:schemas/run-task-body',
  closed(
    {
      app: name('the task app: an integration name, a model title without punctuation, or an adapter name'),
      method: name('the task name: a generated method name or an operationId'),
      incoming: anyObject("the task's resolved incoming variables; adapter_id picks the instance when several answer to app"),
      timeoutMs: int({ minimum: 1, maximum: 600_000 }),
    },
    ['app', 'method', 'incoming'],
  ),
);

/** Answer of `admin.runTask`: the task's `result`. A non-2xx answer is the error INTEGRATION_CALL_FAILED with this in `details`. */
export const runTaskResultSchema = withId('nap:schemas/run-task-result', obj({ result: embed(outboundResponseSchema) }, ['result']));
