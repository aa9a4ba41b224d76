import type { Static } from '@sinclair/typebox';
import { arr, bool, closed, embed, int, name, obj, oneOf, open, str, strings, withId } from './common';

/** Logger properties of an integration or adapter; members beyond these are kept as given. */
export const loggerPropsSchema = withId(
  'nap:schemas/logger-props',
  open({
    log_max_files: int({ minimum: 0 }),
    log_max_file_size: int({ minimum: 0 }),
    log_level: str({ description: 'values that occur: info, debug, spam' }),
    log_directory: str(),
    log_filename: str(),
    console_level: str(),
    description: str(),
    log_timezone_offset: int(),
    metrics_filename: str(),
    metrics_max_files: int({ minimum: 0 }),
    metrics_rotation_interval: str(),
    metrics_rotation_size: str(),
    syslog: open({
      level: str(),
      facility: str(),
      type: str({ description: 'for example BSD or 5424' }),
      host: str(),
      port: int({ minimum: 0, maximum: 65535 }),
      protocol: str(),
      path: str(),
      pid: str(),
      localhost: str(),
      app_name: str(),
      eol: str(),
    }),
  }),
);
/** Logger properties of an integration or adapter. */
export type LoggerProps = Static<typeof loggerPropsSchema>;

/**
 * An integration record, item of `GET /integrations`. An integration runs in no process of its own:
 * `loggerProps`, `systemProps` and `eventDeduplication` are those of the admin service, which makes
 * its calls (its log level, its heap limit; it emits no events to deduplicate).
 */
export const integrationRecordSchema = withId(
  'nap:schemas/integration-record',
  open({
    metadata: open({ isActive: bool(), activeSync: bool({ description: 'on some items only' }) }, ['isActive']),
    data: open({
      loggerProps: embed(loggerPropsSchema, {
        description: "log_level and console_level: the admin service's level now, at which the integration's calls are logged",
      }),
      isEncrypted: bool(),
      model: str(),
      name: str(),
      type: str({ description: 'value Application in examples' }),
      properties: open({ id: str(), type: str(), brokers: strings(), groups: strings({ description: 'group ids' }) }),
      profiling: bool(),
      virtual: bool(),
      systemProps: open(
        { maxOldSpaceSize: int({ description: 'MiB: the heap limit of the process that makes the calls (the admin service)' }) },
        ['maxOldSpaceSize'],
      ),
      eventDeduplication: open(
        {
          active: bool({ description: 'always false: an integration emits no events' }),
          cacheTtl: int({ description: 'ms; 0: nothing is cached' }),
          algorithm: str({ description: 'for example md5' }),
          uniqueProps: strings({ description: 'JSON pointers' }),
        },
        ['active', 'cacheTtl', 'algorithm', 'uniqueProps'],
      ),
    }),
  }),
);
/** An integration record, item of `GET /integrations`. */
export type IntegrationRecord = Static<typeof integrationRecordSchema>;

/** `{ results, total }` of `GET /integrations`. */
export const integrationListSchema = withId(
  'nap:schemas/integration-list',
  obj({ results: arr(embed(integrationRecordSchema)), total: int({ minimum: 0 }) }, ['results', 'total']),
);
/** `{ results, total }` of `GET /integrations`. */
export type IntegrationList = Static<typeof integrationListSchema>;

/** Authentication types of integrations and HTTP adapters. */
export const AUTHENTICATION_TYPES = ['none', 'basic', 'bearer', 'apiKey', 'oauthClientCredentials'] as const;
/** An authentication type. */
export type AuthenticationType = (typeof AUTHENTICATION_TYPES)[number];

/** Where an outside system is: protocol, host, port and the base path below which the model's paths lie. */
export const serverSettingsSchema = withId(
  'nap:schemas/server-settings',
  closed({
    protocol: oneOf(['http', 'https']),
    host: name('host name or address'),
    port: int({ minimum: 1, maximum: 65535 }),
    base_path: str({ description: "path prefix of every operation, for example /api; the model's first server gives the default" }),
  }),
);

/**
 * How calls authenticate. Which members are required depends on `type`: basic needs `username` and
 * `password`; bearer `token`; apiKey `in`, `name` and `api_key`; oauthClientCredentials `token_url`,
 * `client_id` and `client_secret` (`scope` optional). Secrets (`password`, `token`, `api_key`,
 * `client_secret`) are sealed at rest and answered as `********`; send `********` to keep the stored one.
 */
export const authenticationSchema = withId(
  'nap:schemas/authentication',
  closed(
    {
      type: oneOf(AUTHENTICATION_TYPES),
      username: str(),
      password: str(),
      token: str(),
      in: oneOf(['header', 'query', 'cookie'], { description: 'apiKey: where the key goes' }),
      name: str({ description: 'apiKey: name of the header, query member or cookie' }),
      api_key: str(),
      token_url: str({ description: 'oauthClientCredentials: the token endpoint (absolute URL)' }),
      client_id: str(),
      client_secret: str(),
      scope: str(),
    },
    ['type'],
  ),
);
/** How calls authenticate. */
export type Authentication = Static<typeof authenticationSchema>;

/** TLS of calls: `enabled` means https; `rejectUnauthorized` false accepts any certificate; `ca` a PEM bundle to trust. */
export const tlsSettingsSchema = withId(
  'nap:schemas/tls-settings',
  closed({ enabled: bool(), rejectUnauthorized: bool(), ca: str({ description: 'PEM' }) }),
);

/** Connection settings of an integration (`data.properties`). */
export const integrationSettingsSchema = withId(
  'nap:schemas/integration-settings',
  closed({
    server: embed(serverSettingsSchema),
    authentication: embed(authenticationSchema),
    tls: embed(tlsSettingsSchema),
    timeoutMs: int({ minimum: 1, maximum: 600_000, description: 'bound of one call when the task gives none; default 30000' }),
  }),
);
/** Connection settings of an integration. */
export type IntegrationSettings = Static<typeof integrationSettingsSchema>;

/**
 * `properties` of `POST /integrations` and `PUT /integrations/:name[/properties]`: no other member
 * (the connection settings go in `properties.properties`; the record's other members are the
 * platform's, not set here).
 */
export const integrationPropertiesSchema = withId(
  'nap:schemas/integration-properties',
  closed(
    {
      name: name('integration name; tasks whose app is this name call it'),
      model: name('versionId of the integration model: <info.title>:<info.version>'),
      type: str({ description: 'default Application' }),
      properties: embed(integrationSettingsSchema),
    },
    [],
  ),
);

/** One finding of the OpenAPI parser: where (a JSON pointer into the document) and what. */
export const modelFindingSchema = withId(
  'nap:schemas/model-finding',
  obj({ path: str({ description: 'JSON pointer, "" for the whole document' }), message: str() }, ['path', 'message']),
);
/** One finding of the OpenAPI parser. */
export type ModelFinding = Static<typeof modelFindingSchema>;

/** Answer of `PUT /integration-models/validation`. */
export const modelValidationSchema = withId(
  'nap:schemas/model-validation',
  obj(
    {
      valid: bool(),
      errors: arr(embed(modelFindingSchema), { description: 'what makes the document refused' }),
      warnings: arr(embed(modelFindingSchema), {
        description: 'findings in response schemas only: reported, not refused (responses are never validated)',
      }),
    },
    ['valid', 'errors'],
  ),
);

/** A method of a model: the generated name, the operationId, the HTTP method and path. */
export const modelMethodSchema = withId(
  'nap:schemas/model-method',
  obj(
    {
      name: str({ description: 'HTTP method plus the PascalCase path segments below the base path' }),
      operationId: str(),
      method: str(),
      path: str(),
    },
    ['name', 'method', 'path'],
  ),
);

/** An integration model: an OpenAPI document named by `versionId`. */
export const integrationModelSchema = withId(
  'nap:schemas/integration-model',
  obj(
    {
      versionId: str({ description: '<info.title>:<info.version>' }),
      title: str(),
      version: str(),
      description: str(),
      specification: str({ description: 'swagger 2.0 or openapi 3.x, as imported' }),
      app: str({
        description: 'info.title without anything but letters and digits: the task app that reaches an integration of this model',
      }),
      servers: arr(obj({ url: str() })),
      defaultBasePath: str(),
      methodCount: int({ minimum: 0 }),
      methods: arr(embed(modelMethodSchema), { description: 'on GET /integration-models/:name only, named for the default base path' }),
      warnings: arr(embed(modelFindingSchema)),
      created: str(),
      createdBy: str(),
      lastUpdated: str(),
      lastUpdatedBy: str(),
    },
    ['versionId', 'title', 'version'],
  ),
);
/** An integration model. */
export type IntegrationModel = Static<typeof integrationModelSchema>;
