import type { Static } from '@sinclair/typebox';
import { LOG_LEVELS, LOG_TRANSPORTS } from '../applications';
import { SERVICE_NAMES } from '../services';
import type { ServiceName } from '../services';
import {
  Type,
  anyObject,
  arr,
  bool,
  closed,
  embed,
  int,
  literal,
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
import { loggerPropsSchema } from './integration';

/**
 * Live settings of each service: what `PUT /applications/:name/properties` changes on every replica
 * at once. Each service validates them and applies them while it runs; what is not here (listen
 * ports, directories, pool sizes, store and bus URLs) is read from `NAP_*` variables when a process
 * starts, and changing it needs a restart of that process.
 */
export const SERVICE_SETTINGS_SCHEMAS = {
  admin: withId(
    'nap:schemas/settings/admin',
    closed(
      {
        tokenTtlSeconds: int({
          minimum: 60,
          maximum: 31_536_000,
          description: 'lifetime of new tokens, seconds (NAP_TOKEN_TTL_SECONDS at start)',
        }),
        sessionIdleMinutes: int({
          minimum: 1,
          maximum: 525_600,
          description: "a session unused this long ends (the profile's authenticationProps.logoutTime); none by default",
        }),
        integrationTimeoutMs: int({
          minimum: 1,
          maximum: 600_000,
          description: "bound of an integration or adapter call that names none (the profile's integrationProps.timeout); 30000 by default",
        }),
        passwordMinLength: int({
          minimum: 8,
          maximum: 1024,
          description: "fewest characters of a new password (the profile's authenticationProps.passwordRules.minLength); 12 by default",
        }),
        loginThrottle: closed(
          {
            accountFailures: int({ minimum: 1, maximum: 1000 }),
            addressFailures: int({ minimum: 1, maximum: 1_000_000 }),
            windowMinutes: int({ minimum: 1, maximum: 1440 }),
            firstWaitSeconds: int({ minimum: 1, maximum: 86_400 }),
            maxWaitMinutes: int({ minimum: 1, maximum: 1440 }),
          },
          [],
          {
            description:
              "throttling of failed logins (the profile's authenticationProps.loginThrottle); by default 5 per username, 50 per address, forgotten after 15 quiet minutes, waits from 60 s doubling up to 15 min",
          },
        ),
      },
      [],
      { description: 'Live settings of AdminEssentials (the admin service)' },
    ),
  ),
  'gateway-devices': withId(
    'nap:schemas/settings/gateway-devices',
    closed(
      {
        sessionLimit: int({
          minimum: 1,
          maximum: 100_000,
          description: 'SSH/NETCONF sessions open at once across all devices (NAP_GW_SESSION_LIMIT at start)',
        }),
        deviceSessionLimit: int({
          minimum: 1,
          maximum: 1000,
          description:
            'sessions open at once to one device unless its gw_session_limit says otherwise (NAP_GW_DEVICE_SESSION_LIMIT at start)',
        }),
        sessionQueueTimeoutMs: int({
          minimum: 1,
          maximum: 3_600_000,
          description: 'how long a request waits for a free session (NAP_GW_SESSION_QUEUE_TIMEOUT_MS at start)',
        }),
        connectTimeoutMs: int({
          minimum: 1,
          maximum: 600_000,
          description: 'bound of connect, login and first prompt (NAP_GW_CONNECT_TIMEOUT_MS at start)',
        }),
        runTimeoutMs: int({
          minimum: 1,
          maximum: 86_400_000,
          description: 'time limit of a playbook, script or IaC run (NAP_GW_RUN_TIMEOUT_MS at start)',
        }),
      },
      [],
      { description: 'Live settings of the device gateway (GatewayDevices, AGManager, AutomationGateway, ConfigurationManager)' },
    ),
  ),
  mop: withId('nap:schemas/settings/mop', closed({}, [], { description: 'MOP has no live settings: its settings are read at start' })),
  'orch-proxy': withId('nap:schemas/settings/orch-proxy', closed({}, [], { description: 'OrchManager has no live settings' })),
  studio: withId(
    'nap:schemas/settings/studio',
    closed({}, [], { description: 'The studio has no live settings: its template workers are sized at start (NAP_TEMPLATE_*)' }),
  ),
  workflow: withId(
    'nap:schemas/settings/workflow',
    closed(
      {
        jobRetentionDays: int({
          minimum: 0,
          maximum: 36_500,
          description:
            "finished root jobs that ended more than this many days ago are archived by the retention, with their child jobs (the active profile's retentionProps.jobsDays); 0: never; 90 by default",
        }),
      },
      [],
      { description: 'Live settings of the workflow engine (its lease and clock are read at start)' },
    ),
  ),
} as const satisfies Record<ServiceName, unknown>;

/** Live settings of the admin service. */
export type AdminSettings = Static<(typeof SERVICE_SETTINGS_SCHEMAS)['admin']>;
/** Live settings of the workflow engine. */
export type WorkflowSettings = Static<(typeof SERVICE_SETTINGS_SCHEMAS)['workflow']>;
/** Live settings of the device gateway. */
export type GatewayDevicesSettings = Static<(typeof SERVICE_SETTINGS_SCHEMAS)['gateway-devices']>;

/** `{ properties: { transport, level } }`: what `PUT /applications/:name/loglevel` and `/adapters/:name/loglevel` take (what the Ansible collection sends). */
export const logLevelBodySchema = withId(
  'nap:schemas/log-level-body',
  closed(
    {
      properties: closed(
        {
          transport: oneOf(LOG_TRANSPORTS, { description: 'which log output the level is recorded for; every one when absent' }),
          level: oneOf(LOG_LEVELS, { description: 'spam is the most verbose' }),
        },
        ['level'],
      ),
    },
    ['properties'],
  ),
);
/** Body of the log level routes. */
export type LogLevelBody = Static<typeof logLevelBodySchema>;

/** Lifecycle states of an application, from discovery of its service's replicas. */
export const APPLICATION_STATES = ['RUNNING', 'STOPPED', 'DEAD'] as const;
/** A lifecycle state of an application. */
export type ApplicationState = (typeof APPLICATION_STATES)[number];

/** One replica of a service as discovery and its control answer show it. */
export const serviceInstanceSchema = withId(
  'nap:schemas/service-instance',
  obj(
    {
      id: str({ description: "the instance's registration id in discovery (changes when it pauses or resumes)" }),
      instance: str({ description: "the replica's own id, stable while its process runs" }),
      state: oneOf(['running', 'paused']),
      version: str(),
      started: str({ description: 'when the replica started serving, ISO 8601' }),
    },
    ['id', 'state'],
  ),
);
/** One replica of a service. */
export type ServiceInstance = Static<typeof serviceInstanceSchema>;

function applicationRecordProperties() {
  return {
    metadata: open(
      {
        isActive: bool({
          description:
            'false once an operator stopped the application; a stopped application stays stopped, on new replicas too, until started',
        }),
        activeSync: bool({ description: 'every replica is in the state and has the settings it should have' }),
        state: oneOf(APPLICATION_STATES, {
          description:
            'RUNNING when a replica takes requests; STOPPED when stopped by an operator (replicas alive, paused); DEAD when no replica answers',
        }),
        service: oneOf(SERVICE_NAMES, { description: 'the NAP service that serves it' }),
        applications: strings({ description: 'every application the same service serves (they start and stop together)' }),
      },
      ['isActive', 'activeSync', 'state', 'service'],
    ),
    data: open(
      {
        name: str(),
        type: literal('Application'),
        model: str({ description: '@nap/<service>' }),
        description: str(),
        isEncrypted: bool(),
        loggerProps: embed(loggerPropsSchema),
        properties: anyObject("the service's live settings as an operator set them (GET /schema/applications/:name)"),
      },
      ['name', 'type', 'model', 'loggerProps', 'properties'],
    ),
    instances: arr(embed(serviceInstanceSchema)),
  };
}

/** An application record, as the original platform keeps it, with state and instances from live discovery. */
export const applicationRecordSchema = withId(
  'nap:schemas/application-record',
  open(applicationRecordProperties(), ['metadata', 'data', 'instances']),
);
/** An application record. */
export type ApplicationRecord = Static<typeof applicationRecordSchema>;

/** Body of `PUT /applications/:name`: the application document's members an operator may change. */
export const applicationUpdateBodySchema = withId(
  'nap:schemas/application-update-body',
  closed(
    {
      properties: closed({
        name: name("the application's name; it cannot change"),
        type: literal('Application'),
        model: str({ description: 'cannot change' }),
        description: str(),
        isEncrypted: bool(),
        loggerProps: embed(loggerPropsSchema),
        properties: anyObject('live settings of the service (GET /schema/applications/:name)'),
      }),
    },
    ['properties'],
  ),
);

/** Body of `PUT /applications/:name/properties`: the live settings, replacing those set before. */
export const applicationPropertiesBodySchema = withId(
  'nap:schemas/application-properties-body',
  closed(
    {
      properties: anyObject(
        "live settings of the service (GET /schema/applications/:name); members left out go back to the values of the process's start",
      ),
    },
    ['properties'],
  ),
);

/** What a change of live settings did: applied at once on every replica, or nothing to apply. */
export const settingsChangeSchema = withId(
  'nap:schemas/settings-change',
  obj(
    {
      applied: strings({ description: 'members that took effect at once on every replica' }),
      replicas: int({ minimum: 0, description: 'replicas that applied them (new replicas get them when they start)' }),
      restartRequired: strings({
        description: 'members stored that no running process changes; they take effect when the processes restart',
      }),
    },
    ['applied', 'replicas', 'restartRequired'],
  ),
);

/** The application record after a change of its document or live settings, with what the change did. */
export const applicationChangeSchema = withId(
  'nap:schemas/application-change',
  open({ ...applicationRecordProperties(), changes: embed(settingsChangeSchema) }, ['metadata', 'data', 'instances', 'changes']),
);
/** The application record after a change, with what the change did. */
export type ApplicationChange = Static<typeof applicationChangeSchema>;

/** Answer of start, stop and restart of an application. */
export const applicationLifecycleSchema = withId(
  'nap:schemas/application-lifecycle',
  obj(
    {
      name: str(),
      state: oneOf(APPLICATION_STATES),
      service: oneOf(SERVICE_NAMES),
      applications: strings({ description: 'every application that changed with it (they share the service)' }),
      replicas: int({ minimum: 0, description: 'replicas that changed' }),
    },
    ['name', 'state', 'service', 'applications', 'replicas'],
  ),
);

/** Health of one application (`GET /health/applications[/:name]`). */
export const applicationHealthSchema = withId(
  'nap:schemas/application-health',
  obj(
    {
      id: str(),
      name: str(),
      type: literal('Application'),
      service: oneOf(SERVICE_NAMES),
      state: oneOf(APPLICATION_STATES),
      version: nullable(str()),
      endpoints: int({ minimum: 0 }),
      instances: arr(
        obj(
          {
            id: str(),
            state: oneOf(['running', 'paused']),
            version: str(),
            started: str(),
            uptimeSeconds: num({ minimum: 0 }),
            requests: int({ minimum: 0 }),
            errors: int({ minimum: 0 }),
            averageProcessingMs: num({ minimum: 0 }),
          },
          ['id', 'state', 'requests', 'errors'],
        ),
      ),
    },
    ['id', 'name', 'type', 'service', 'state', 'instances'],
  ),
);
/** Health of one application. */
export type ApplicationHealth = Static<typeof applicationHealthSchema>;

// ---- indexes ----

/**
 * An index of a collection (`keys` in order: field → 1 or -1; an index the platform does not manage,
 * made in MongoDB by an operator, may have a kind instead: `text`, `hashed`, `2dsphere`).
 */
export const indexSpecSchema = withId(
  'nap:schemas/index-spec',
  obj(
    {
      name: str({ description: "MongoDB's default name (field_1_other_-1) unless declared" }),
      keys: mapOf(Type.Union([literal(1), literal(-1), str()])),
      unique: bool(),
      sparse: bool(),
      partialFilterExpression: anyObject('only the documents that match are indexed (MongoDB)'),
      expireAfterSeconds: int({ minimum: 0, description: 'documents expire this long after the date in the key (MongoDB TTL)' }),
      collation: anyObject('string comparison of the index (MongoDB collation)'),
    },
    ['keys'],
  ),
);
/** A declared index. */
export type IndexSpecDoc = Static<typeof indexSpecSchema>;

/** The indexes a service declares for one of its collections. */
export const declaredIndexesSchema = withId(
  'nap:schemas/declared-indexes',
  obj({ collection: str(), service: oneOf(SERVICE_NAMES), indexes: arr(embed(indexSpecSchema)) }, ['collection', 'service', 'indexes']),
);
/** The indexes a service declares for one of its collections. */
export type DeclaredIndexes = Static<typeof declaredIndexesSchema>;

/** `GET /indexes/:collection/status`: the declared indexes compared with what the store has. */
export const indexStatusSchema = withId(
  'nap:schemas/index-status',
  obj(
    {
      collection: str(),
      service: oneOf(SERVICE_NAMES),
      missing: arr(embed(indexSpecSchema), { description: 'declared, absent from the store' }),
      misnamed: arr(obj({ expected: embed(indexSpecSchema), actual: embed(indexSpecSchema) }, ['expected', 'actual']), {
        description: 'the store has the index under another name (or with other options)',
      }),
      external: arr(embed(indexSpecSchema), { description: 'in the store but declared by no one' }),
      indexed: arr(embed(indexSpecSchema), { description: 'declared and present as declared' }),
    },
    ['collection', 'service', 'missing', 'misnamed', 'external', 'indexed'],
  ),
);
/** Status of a collection's indexes. */
export type IndexStatus = Static<typeof indexStatusSchema>;

/** `POST /indexes/:collection`: what creating the declared indexes did. */
export const indexCreationSchema = withId(
  'nap:schemas/index-creation',
  obj(
    {
      collection: str(),
      service: oneOf(SERVICE_NAMES),
      unchanged: int({ minimum: 0, description: 'declared indexes that were already there' }),
      changed: int({ minimum: 0, description: 'indexes created, or made again under their declared name' }),
      total: int({ minimum: 0, description: 'declared indexes of the collection' }),
      running: int({ minimum: 0, description: 'builds still running when the answer was sent (0: the stores build before answering)' }),
    },
    ['collection', 'service', 'unchanged', 'changed', 'total', 'running'],
  ),
);
/** What creating the declared indexes did. */
export type IndexCreation = Static<typeof indexCreationSchema>;

// ---- control of one replica (nap.sys.control.<instance>) ----

/** What a replica answers to the control channel: its state, log level and live settings. */
export const instanceStatusSchema = withId(
  'nap:schemas/instance-status',
  obj(
    {
      instance: name(),
      service: oneOf(SERVICE_NAMES),
      state: oneOf(['running', 'paused']),
      logLevel: str(),
      settings: anyObject('the live settings in force'),
      revision: int({ minimum: 0, description: 'revision of the configuration it last applied (0: none)' }),
      pid: int(),
      hostname: str(),
      started: str(),
    },
    ['instance', 'service', 'state', 'logLevel', 'settings', 'revision'],
  ),
);
/** What a replica answers to the control channel. */
export type InstanceStatus = Static<typeof instanceStatusSchema>;

/** A command on a replica's control subject. */
export const controlCommandSchema = withId(
  'nap:schemas/control-command',
  Type.Union([
    closed({ command: literal('status') }, ['command']),
    closed(
      {
        command: literal('configure'),
        revision: int({ minimum: 0, description: 'increases with every change an operator makes' }),
        paused: bool({ description: 'stop taking requests (true) or take them (false)' }),
        logLevel: nullable(oneOf(LOG_LEVELS, { description: 'null: back to the level the process started with (NAP_LOG_LEVEL)' })),
        settings: anyObject('live settings (replacing those applied before); validated by the service'),
      },
      ['command', 'revision'],
    ),
    closed({ command: literal('indexes') }, ['command']),
    closed({ command: literal('indexStatus'), collection: name() }, ['command', 'collection']),
    closed({ command: literal('createIndexes'), collection: name() }, ['command', 'collection']),
  ]),
);
/** A command on a replica's control subject. */
export type ControlCommand = Static<typeof controlCommandSchema>;

/** What a starting replica asks on `nap.sys.applications.desired`; the answer is a control reply whose result is a `configure` command. */
export const desiredStateRequestSchema = withId(
  'nap:schemas/desired-state-request',
  closed({ service: oneOf(SERVICE_NAMES) }, ['service']),
);

/** The answer of a control command: `ok` with the result, or the error (code, message, details). */
export const controlReplySchema = withId(
  'nap:schemas/control-reply',
  Type.Union([
    closed({ ok: literal(true), result: Type.Unknown() }, ['ok']),
    closed({ ok: literal(false), error: obj({ code: str(), message: str(), details: Type.Unknown() }, ['code', 'message']) }, [
      'ok',
      'error',
    ]),
  ]),
);
/** The answer of a control command. */
export type ControlReply = Static<typeof controlReplySchema>;
