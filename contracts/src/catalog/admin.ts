import type { TProperties } from '@sinclair/typebox';
import { ROLE_NAMES, ROLE_SETS } from '../roles';
import {
  Type,
  acknowledgement,
  anyObject,
  arr,
  bool,
  closed,
  embed,
  int,
  name,
  num,
  obj,
  oneOf,
  resultsOf,
  str,
  strings,
} from '../schemas/common';
import { createdResultSchema } from '../schemas/automation';
import {
  authenticateBodySchema,
  identitySchema,
  loginBodySchema,
  loginResultSchema,
  oauthTokenBodySchema,
  oauthTokenResultSchema,
  resolveSessionBodySchema,
  sessionSchema,
  tokenKeysSchema,
  whoamiSchema,
} from '../schemas/auth';
import {
  integrationListSchema,
  integrationModelSchema,
  integrationPropertiesSchema,
  integrationRecordSchema,
  loggerPropsSchema,
  modelValidationSchema,
} from '../schemas/integration';
import {
  ADAPTER_TYPES,
  adapterDataSchema,
  adapterHealthSchema,
  adapterRecordSchema,
  callAdapterBodySchema,
  outboundResponseSchema,
  runTaskBodySchema,
  runTaskResultSchema,
} from '../schemas/adapter';
import { prebuiltDescriptorSchema } from '../schemas/prebuilt';
import { listQuerySchema, queryOptionsSchema } from '../schemas/query';
import { defineOperations, TIMEOUTS_MS } from './define';

const ADMIN = ROLE_SETS.admin;

const ACCOUNT_LIST_NOTES = 'Filter fields: _id, username, email, firstname, lastname; sorted by username.';
const GROUP_LIST_NOTES = 'Filter fields: _id, name, description; sorted by name.';

/** A record whose fields the spec does not show. */
function record(description: string) {
  return anyObject(description);
}

function listOf(description: string) {
  return resultsOf(record(description));
}

/** `{ properties: { … } }`: the service configuration of an adapter, application, integration or profile. */
function configuration<P extends TProperties, const R extends readonly (keyof P & string)[] = []>(members: P, required?: R) {
  return obj({ properties: obj(members, required, { description: 'service configuration' }) }, ['properties']);
}

/** `{ valid, errors }` of the validation routes. */
function validity() {
  return obj({ valid: bool(), errors: strings() }, ['valid']);
}

const loggingBody = obj(
  {
    transport: oneOf(['console', 'file', 'syslog'], { description: 'which log output to change; all when absent' }),
    level: name('log level, for example error, warn, info, debug, trace, spam'),
  },
  ['level'],
);

const groupRecord = obj(
  { _id: str(), name: str(), description: str(), roles: arr(oneOf(ROLE_NAMES)), provenance: str() },
  [],
  { description: 'group record' },
);

const accountRecord = obj(
  {
    _id: str(),
    username: str(),
    firstname: str(),
    lastname: str(),
    email: str(),
    groups: strings({ description: 'group ids' }),
    inactive: bool(),
    provenance: str(),
  },
  [],
  { description: 'account record; never carries a password or its hash' },
);

const health = record('health record: status and details');
const adapterHealth = embed(adapterHealthSchema);
const adapterRecord = embed(adapterRecordSchema);
const adapterBody = obj({ properties: embed(adapterDataSchema) }, ['properties']);
const integrationBody = obj({ properties: embed(integrationPropertiesSchema) }, ['properties']);
const modelBody = obj({ model: record('OpenAPI 2.0, 3.0 or 3.1 document') }, ['model']);
const integrationModel = embed(integrationModelSchema);
const changelogs = resultsOf(obj({ version: str(), date: str(), changes: str() }));
const lifecycle = obj({ name: str(), state: str({ description: 'RUNNING, STOPPED, …' }) }, [], { description: 'state after the change' });
const adapterLifecycle = obj({ name: str(), state: str({ description: 'STARTING, STOPPING, …: the change has begun; GET /health/adapters/:name follows it' }) }, ['name', 'state']);

/**
 * Operations of the `admin` service: accounts, groups and roles, adapters, applications,
 * integrations and their models, profiles, prebuilts and repositories, external links, indexes,
 * health, metrics, and authentication. Platform administration has one line per route of the spec's
 * table, with payloads designed where the spec shows none; the authentication routes and bus
 * operations at the end are additions of this platform.
 */
export const ADMIN_OPERATIONS = defineOperations('admin', [
  // indexes
  { name: 'checkIndexes', summary: 'Status of predefined indexes of a collection', http: { method: 'GET', path: '/indexes/:collection/status' }, roles: ADMIN, response: obj({ collection: str(), indexes: arr(obj({ name: str(), present: bool() })) }) },
  { name: 'createIndexes', summary: 'Create the predefined indexes of a collection', http: { method: 'POST', path: '/indexes/:collection' }, roles: ADMIN, response: obj({ collection: str(), created: strings() }), timeoutMs: TIMEOUTS_MS.device },
  { name: 'getIndexes', summary: 'All predefined indexes', http: { method: 'GET', path: '/indexes' }, roles: ADMIN, response: listOf('collection and its predefined indexes') },
  // accounts
  {
    name: 'createAccount',
    summary: 'Create a service account',
    http: { method: 'POST', path: '/user-management/accounts' },
    roles: ADMIN,
    body: obj(
      {
        account: obj(
          {
            username: name('unique login name'),
            password: str({ minLength: 8, description: 'stored as a scrypt hash, never returned' }),
            firstname: str(),
            lastname: str(),
            email: str(),
            groups: strings({ description: 'group ids' }),
          },
          ['username', 'password'],
        ),
      },
      ['account'],
    ),
    response: createdResultSchema('nap:schemas/account-created', accountRecord),
  },
  { name: 'deleteAccount', summary: 'Delete an account', http: { method: 'DELETE', path: '/user-management/accounts/:accountId' }, roles: ADMIN, response: acknowledgement() },
  { name: 'getAccount', summary: 'Get an account', http: { method: 'GET', path: '/user-management/accounts/:accountId' }, roles: ADMIN, response: accountRecord },
  { name: 'getAccounts', summary: 'All accounts', http: { method: 'GET', path: '/user-management/accounts' }, roles: ADMIN, query: listQuerySchema, response: resultsOf(accountRecord), notes: ACCOUNT_LIST_NOTES },
  {
    name: 'getAuthorizationAccounts',
    summary: 'All accounts (the platform\'s own name for GET /user-management/accounts)',
    http: { method: 'GET', path: '/authorization/accounts' },
    roles: ADMIN,
    query: listQuerySchema,
    response: resultsOf(accountRecord),
    addition: true,
    notes: ACCOUNT_LIST_NOTES,
  },
  {
    name: 'getAuthorizationAccount',
    summary: 'Get an account (the platform\'s own name for GET /user-management/accounts/:accountId)',
    http: { method: 'GET', path: '/authorization/accounts/:accountId' },
    roles: ADMIN,
    response: accountRecord,
    addition: true,
  },
  {
    name: 'setAccountGroups',
    summary: 'Set groups of an account',
    http: { method: 'PUT', path: '/user-management/accounts/:accountId/groups' },
    roles: ADMIN,
    body: obj({ groups: strings({ uniqueItems: true, description: 'group ids; replaces the account\'s groups' }) }, ['groups']),
    response: accountRecord,
  },
  {
    name: 'setAccountPassword',
    summary: 'Change password of an account',
    http: { method: 'PUT', path: '/user-management/accounts/:accountId/password' },
    roles: ADMIN,
    body: obj({ password: str({ minLength: 8, description: 'the new password; revokes the account\'s sessions' }) }, ['password']),
    response: acknowledgement(),
  },
  {
    name: 'updateAccount',
    summary: 'Update an account',
    http: { method: 'PATCH', path: '/authorization/accounts/:accountId' },
    roles: ADMIN,
    body: closed({ firstname: str(), lastname: str(), email: str(), inactive: bool() }, [], {
      minProperties: 1,
      description: 'members to change; an inactive account cannot log in and its sessions end',
    }),
    response: accountRecord,
  },
  // groups
  {
    name: 'createGroup',
    summary: 'Create a group',
    http: { method: 'POST', path: '/user-management/groups' },
    roles: ['admin'],
    body: closed({ group: obj({ name: name('group name, unique'), description: str(), roles: arr(oneOf(ROLE_NAMES)) }, ['name']) }, ['group']),
    response: createdResultSchema(
      'nap:schemas/group-created',
      Type.Union([groupRecord, embed(prebuiltDescriptorSchema)], { description: 'the created group (the spec\'s example shows a prebuilt descriptor here)' }),
    ),
    notes: '"No other member" applies to the top level; other members of group (description, roles) are accepted.',
  },
  { name: 'deleteGroup', summary: 'Delete a group', http: { method: 'DELETE', path: '/user-management/groups/:groupId' }, roles: ADMIN, response: acknowledgement() },
  { name: 'getGroup', summary: 'Get a group', http: { method: 'GET', path: '/user-management/groups/:groupId' }, roles: ADMIN, response: groupRecord },
  { name: 'getGroups', summary: 'All groups', http: { method: 'GET', path: '/user-management/groups' }, roles: ADMIN, query: listQuerySchema, response: resultsOf(groupRecord), notes: GROUP_LIST_NOTES },
  {
    name: 'getAuthorizationGroups',
    summary: 'All groups (the platform\'s own name for GET /user-management/groups)',
    http: { method: 'GET', path: '/authorization/groups' },
    roles: ADMIN,
    query: listQuerySchema,
    response: resultsOf(groupRecord),
    addition: true,
    notes: GROUP_LIST_NOTES,
  },
  {
    name: 'getAuthorizationGroup',
    summary: 'Get a group (the platform\'s own name for GET /user-management/groups/:groupId)',
    http: { method: 'GET', path: '/authorization/groups/:groupId' },
    roles: ADMIN,
    response: groupRecord,
    addition: true,
  },
  {
    name: 'setGroupRoles',
    summary: 'Set roles of a group',
    http: { method: 'PUT', path: '/user-management/groups/:groupId/roles' },
    roles: ADMIN,
    body: obj({ roles: arr(oneOf(ROLE_NAMES), { uniqueItems: true, description: 'replaces the group\'s roles' }) }, ['roles']),
    response: groupRecord,
  },
  { name: 'getAssignableRoles', summary: 'All assignable roles', http: { method: 'GET', path: '/user-management/roles' }, roles: ADMIN, response: resultsOf(obj({ name: str(), description: str() }, ['name'])) },
  // adapters
  { name: 'createAdapter', summary: 'Create an adapter', http: { method: 'POST', path: '/adapters' }, roles: ADMIN, body: adapterBody, response: adapterRecord, notes: 'Body { properties: <the adapter document> }; created STOPPED.' },
  { name: 'deleteAdapter', summary: 'Delete an adapter', http: { method: 'DELETE', path: '/adapters/:name' }, roles: ADMIN, response: acknowledgement(), timeoutMs: TIMEOUTS_MS.lifecycle, notes: 'Stops it first; its state becomes DELETED.' },
  { name: 'exportAdapter', summary: 'Export an adapter', http: { method: 'GET', path: '/adapters/:name/export' }, roles: ADMIN, response: embed(adapterDataSchema), notes: 'The adapter document, secrets answered as ********; POST /adapters/import takes it back once the secrets are filled in.' },
  { name: 'getAdapter', summary: 'Get an adapter', http: { method: 'GET', path: '/adapters/:name' }, roles: ADMIN, response: adapterRecord },
  { name: 'getAdapters', summary: 'All adapters', http: { method: 'GET', path: '/adapters' }, roles: ADMIN, query: listQuerySchema, response: resultsOf(adapterRecord) },
  { name: 'getAdapterChangelogs', summary: 'Changelogs of an adapter', http: { method: 'GET', path: '/adapters/:name/changelogs' }, roles: ADMIN, response: changelogs, notes: 'One entry per change of the adapter document (create, update, import), newest first.' },
  { name: 'getAdapterModelTypes', summary: 'Available adapter model types', http: { method: 'GET', path: '/adapter-models/types' }, roles: ADMIN, response: resultsOf(oneOf(ADAPTER_TYPES)) },
  { name: 'getAdapterSchema', summary: 'Adapter schema', http: { method: 'GET', path: '/schema/adapters/:name' }, roles: ADMIN, response: record('JSON Schema of the adapter\'s connection settings'), notes: ':name is an adapter name or a model type (HTTP, NSO).' },
  { name: 'getBrokerMap', summary: 'Mapping between brokers and adapters', http: { method: 'GET', path: '/adapters/brokers/mapping' }, roles: ADMIN, response: record('broker name to adapter names') },
  { name: 'importAdapter', summary: 'Import an adapter', http: { method: 'POST', path: '/adapters/import' }, roles: ADMIN, body: adapterBody, response: adapterRecord, notes: 'Same body as POST /adapters. A secret still masked (********) is refused: an export carries none.' },
  { name: 'restartAdapter', summary: 'Restart an adapter', http: { method: 'PUT', path: '/adapters/:name/restart' }, roles: ADMIN, response: adapterLifecycle, timeoutMs: TIMEOUTS_MS.lifecycle },
  { name: 'startAdapter', summary: 'Start an adapter', http: { method: 'PUT', path: '/adapters/:name/start' }, roles: ADMIN, response: adapterLifecycle, timeoutMs: TIMEOUTS_MS.lifecycle, notes: 'Answers at once (STARTING); RUNNING once its first connection check has run.' },
  { name: 'stopAdapter', summary: 'Stop an adapter', http: { method: 'PUT', path: '/adapters/:name/stop' }, roles: ADMIN, response: adapterLifecycle, timeoutMs: TIMEOUTS_MS.lifecycle },
  { name: 'updateAdapter', summary: 'Update an adapter', http: { method: 'PUT', path: '/adapters/:name' }, roles: ADMIN, body: adapterBody, response: adapterRecord, notes: 'Replaces the document (the name stays); a RUNNING adapter restarts with it.' },
  { name: 'updateAdapterLogging', summary: 'Update log levels of an adapter', http: { method: 'PUT', path: '/adapters/:name/loglevel' }, roles: ADMIN, body: loggingBody, response: embed(loggerPropsSchema) },
  { name: 'updateAdapterProperties', summary: 'Update properties of an adapter', http: { method: 'PUT', path: '/adapters/:name/properties' }, roles: ADMIN, body: obj({ properties: record('connection settings of the adapter\'s type') }, ['properties']), response: adapterRecord, notes: 'Replaces data.properties.properties; secrets sent as ******** keep their stored value.' },
  { name: 'getAdapterHealth', summary: 'Health of one adapter', http: { method: 'GET', path: '/health/adapters/:name' }, roles: ADMIN, response: adapterHealth, timeoutMs: TIMEOUTS_MS.short },
  // operation 8
  {
    name: 'getAdaptersHealth',
    summary: 'Health of all adapters',
    http: { method: 'GET', path: '/health/adapters' },
    roles: ['admin', 'apiread'],
    query: queryOptionsSchema,
    response: obj({ results: arr(adapterHealth), total: int({ minimum: 0 }) }, [], { description: 'the adapters health data' }),
    timeoutMs: TIMEOUTS_MS.short,
    notes: 'queryOptions arrive as flat query members. The spec does not show the shape of results; the service answers { results: [...], total } like GET /integrations.',
  },
  // applications
  { name: 'getApplication', summary: 'Get an application', http: { method: 'GET', path: '/applications/:name' }, roles: ADMIN, response: record('application'), timeoutMs: TIMEOUTS_MS.short },
  { name: 'getApplications', summary: 'All applications', http: { method: 'GET', path: '/applications' }, roles: ADMIN, query: listQuerySchema, response: listOf('application'), timeoutMs: TIMEOUTS_MS.short },
  { name: 'getApplicationChangelogs', summary: 'Changelogs of an application', http: { method: 'GET', path: '/applications/:name/changelogs' }, roles: ADMIN, response: changelogs },
  { name: 'getApplicationSchema', summary: 'Application schema', http: { method: 'GET', path: '/schema/applications/:name' }, roles: ADMIN, response: record('JSON Schema of the application properties') },
  { name: 'restartApplication', summary: 'Restart an application', http: { method: 'PUT', path: '/applications/:name/restart' }, roles: ADMIN, response: lifecycle, timeoutMs: TIMEOUTS_MS.lifecycle },
  { name: 'startApplication', summary: 'Start an application', http: { method: 'PUT', path: '/applications/:name/start' }, roles: ADMIN, response: lifecycle, timeoutMs: TIMEOUTS_MS.lifecycle },
  { name: 'stopApplication', summary: 'Stop an application', http: { method: 'PUT', path: '/applications/:name/stop' }, roles: ADMIN, response: lifecycle, timeoutMs: TIMEOUTS_MS.lifecycle },
  { name: 'updateApplication', summary: 'Update an application', http: { method: 'PUT', path: '/applications/:name' }, roles: ADMIN, body: configuration({}), response: record('application') },
  { name: 'updateApplicationLogging', summary: 'Update log levels of an application', http: { method: 'PUT', path: '/applications/:name/loglevel' }, roles: ADMIN, body: loggingBody, response: embed(loggerPropsSchema) },
  { name: 'updateApplicationProperties', summary: 'Update properties of an application', http: { method: 'PUT', path: '/applications/:name/properties' }, roles: ADMIN, body: configuration({}), response: record('application') },
  { name: 'getApplicationHealth', summary: 'Health of one application', http: { method: 'GET', path: '/health/applications/:name' }, roles: ADMIN, response: health, timeoutMs: TIMEOUTS_MS.short },
  { name: 'getApplicationsHealth', summary: 'Health of all applications', http: { method: 'GET', path: '/health/applications' }, roles: ADMIN, query: listQuerySchema, response: resultsOf(health), timeoutMs: TIMEOUTS_MS.short },
  // integrations
  { name: 'createIntegration', summary: 'Create an integration', http: { method: 'POST', path: '/integrations' }, roles: ADMIN, body: integrationBody, response: embed(integrationRecordSchema), notes: 'An instance of a model: server defaults to the model\'s first server; secrets are sealed and answered as ********.' },
  { name: 'deleteIntegration', summary: 'Delete an integration', http: { method: 'DELETE', path: '/integrations/:name' }, roles: ADMIN, response: acknowledgement() },
  { name: 'getIntegration', summary: 'Get an integration', http: { method: 'GET', path: '/integrations/:name' }, roles: ADMIN, response: embed(integrationRecordSchema) },
  {
    name: 'getIntegrations',
    summary: 'All integrations',
    http: { method: 'GET', path: '/integrations' },
    roles: ADMIN,
    query: queryOptionsSchema,
    response: integrationListSchema,
    notes: 'queryOptions arrive as flat query members (operation 9).',
  },
  { name: 'getIntegrationSchema', summary: 'Integration schema', http: { method: 'GET', path: '/schema/integrations/:name' }, roles: ADMIN, response: record('JSON Schema of the integration properties'), notes: ':name is an integration name; the schema of its properties, with the model\'s servers as examples.' },
  { name: 'updateIntegration', summary: 'Update an integration', http: { method: 'PUT', path: '/integrations/:name' }, roles: ADMIN, body: integrationBody, response: embed(integrationRecordSchema), notes: 'Members given replace the stored ones (the name stays); secrets sent as ******** keep their stored value.' },
  { name: 'updateIntegrationProperties', summary: 'Update properties of an integration', http: { method: 'PUT', path: '/integrations/:name/properties' }, roles: ADMIN, body: integrationBody, response: embed(integrationRecordSchema), notes: 'As PUT /integrations/:name.' },
  // integration models
  { name: 'createIntegrationModel', summary: 'Create an integration model', http: { method: 'POST', path: '/integration-models' }, roles: ADMIN, body: modelBody, response: integrationModel, timeoutMs: TIMEOUTS_MS.lifecycle, notes: 'Validated with an OpenAPI parser (2.0 converted to 3.x first); 400 INTEGRATION_MODEL_INVALID lists the findings { path, message } in details.' },
  { name: 'deleteIntegrationModel', summary: 'Delete an integration model', http: { method: 'DELETE', path: '/integration-models/:name' }, roles: ADMIN, response: acknowledgement(), notes: '409 INTEGRATION_MODEL_IN_USE while an integration uses it.' },
  { name: 'exportIntegrationModel', summary: 'Export the open API spec of a model', http: { method: 'GET', path: '/integration-models/:name/export' }, roles: ADMIN, response: record('the OpenAPI document as imported') },
  { name: 'getIntegrationModel', summary: 'Get a model', http: { method: 'GET', path: '/integration-models/:name' }, roles: ADMIN, response: integrationModel },
  { name: 'getIntegrationModels', summary: 'All models', http: { method: 'GET', path: '/integration-models' }, roles: ADMIN, query: listQuerySchema, response: resultsOf(integrationModel) },
  { name: 'updateIntegrationModel', summary: 'Update a model', http: { method: 'PUT', path: '/integration-models' }, roles: ADMIN, body: modelBody, response: integrationModel, timeoutMs: TIMEOUTS_MS.lifecycle, notes: 'Replaces the document of the existing versionId; 409 INTEGRATION_MODEL_IN_USE while an integration uses it.' },
  { name: 'validateIntegrationModel', summary: 'Validate a model', http: { method: 'PUT', path: '/integration-models/validation' }, roles: ADMIN, body: modelBody, response: embed(modelValidationSchema), timeoutMs: TIMEOUTS_MS.lifecycle, notes: 'The check of POST /integration-models without storing anything.' },
  // external links
  {
    name: 'createLink',
    summary: 'Create a link',
    http: { method: 'POST', path: '/external-links' },
    roles: ADMIN,
    body: obj({ link: obj({ name: name(), address: name('URL'), description: str() }, ['name', 'address']) }, ['link']),
    response: record('link'),
  },
  { name: 'deleteLink', summary: 'Delete a link', http: { method: 'DELETE', path: '/external-links/:linkId' }, roles: ADMIN, response: acknowledgement() },
  { name: 'getLink', summary: 'Get a link', http: { method: 'GET', path: '/external-links/:linkId' }, roles: ADMIN, response: record('link') },
  { name: 'getLinks', summary: 'All links', http: { method: 'GET', path: '/external-links' }, roles: ADMIN, query: listQuerySchema, response: listOf('link') },
  { name: 'updateLink', summary: 'Update a link', http: { method: 'PATCH', path: '/external-links/:linkId' }, roles: ADMIN, body: obj({ link: obj({ name: name(), address: name('URL'), description: str() }) }, ['link']), response: record('link') },
  // profiles
  { name: 'createProfile', summary: 'Create a profile', http: { method: 'POST', path: '/profiles' }, roles: ADMIN, body: configuration({ id: name() }, ['id']), response: record('profile') },
  { name: 'deleteProfile', summary: 'Delete a profile', http: { method: 'DELETE', path: '/profiles/:id' }, roles: ADMIN, response: acknowledgement() },
  { name: 'exportProfile', summary: 'Export a profile', http: { method: 'GET', path: '/profiles/:id/export' }, roles: ADMIN, response: record('exported profile') },
  { name: 'getProfile', summary: 'Get a profile', http: { method: 'GET', path: '/profiles/:id' }, roles: ADMIN, response: record('profile') },
  { name: 'getProfiles', summary: 'All profiles', http: { method: 'GET', path: '/profiles' }, roles: ADMIN, query: listQuerySchema, response: listOf('profile') },
  { name: 'getProfileSchema', summary: 'Profile schema', http: { method: 'GET', path: '/schema/profiles' }, roles: ADMIN, response: record('JSON Schema of a profile') },
  { name: 'importProfile', summary: 'Import a profile', http: { method: 'POST', path: '/profiles/import' }, roles: ADMIN, body: obj({ profile: record('an exported profile') }, ['profile']), response: record('profile') },
  { name: 'switchActiveProfile', summary: 'Switch the active profile', http: { method: 'PUT', path: '/profiles/:id/active' }, roles: ADMIN, response: record('the now active profile') },
  { name: 'updateProfile', summary: 'Update a profile', http: { method: 'PUT', path: '/profiles/:id' }, roles: ADMIN, body: configuration({}), response: record('profile') },
  // prebuilts
  { name: 'exportPrebuilt', summary: 'Export a prebuilt', http: { method: 'GET', path: '/prebuilts/:id/export' }, roles: ADMIN, response: embed(prebuiltDescriptorSchema), timeoutMs: TIMEOUTS_MS.device },
  { name: 'getPrebuilt', summary: 'Get a prebuilt', http: { method: 'GET', path: '/prebuilts/:id' }, roles: ADMIN, response: embed(prebuiltDescriptorSchema) },
  { name: 'getPrebuilts', summary: 'All prebuilts', http: { method: 'GET', path: '/prebuilts' }, roles: ADMIN, query: listQuerySchema, response: resultsOf(embed(prebuiltDescriptorSchema)) },
  {
    name: 'importPrebuilt',
    summary: 'Import a prebuilt',
    http: { method: 'POST', path: '/prebuilts/import' },
    roles: ADMIN,
    body: obj({ prebuilt: embed(prebuiltDescriptorSchema), options: obj({ overwrite: bool({ default: false }) }) }, ['prebuilt']),
    response: embed(prebuiltDescriptorSchema),
    timeoutMs: TIMEOUTS_MS.long,
  },
  { name: 'removePrebuilt', summary: 'Remove a prebuilt', http: { method: 'DELETE', path: '/prebuilts/:id' }, roles: ADMIN, response: acknowledgement(), timeoutMs: TIMEOUTS_MS.device },
  { name: 'updatePrebuilt', summary: 'Update a prebuilt', http: { method: 'PUT', path: '/prebuilts/:id' }, roles: ADMIN, body: obj({ prebuilt: embed(prebuiltDescriptorSchema) }, ['prebuilt']), response: embed(prebuiltDescriptorSchema), timeoutMs: TIMEOUTS_MS.long },
  {
    name: 'validatePrebuilt',
    summary: 'Validate the data structure of a prebuilt',
    http: { method: 'PUT', path: '/prebuilts/import/validation' },
    roles: ADMIN,
    body: obj({ prebuilt: embed(prebuiltDescriptorSchema) }, ['prebuilt']),
    response: validity(),
  },
  // prebuilt repository configurations
  {
    name: 'createRepositoryConfig',
    summary: 'Create a repository configuration',
    http: { method: 'POST', path: '/prebuilts-repository/configs' },
    roles: ADMIN,
    body: obj({ config: obj({ name: name(), type: str({ description: 'for example hostedRepo, gitlab' }), hostname: str(), path: str(), credentials: anyObject('never returned') }, ['name']) }, ['config']),
    response: record('repository configuration, without credentials'),
  },
  { name: 'deleteRepositoryConfig', summary: 'Delete a repository configuration', http: { method: 'DELETE', path: '/prebuilts-repository/configs/:name' }, roles: ADMIN, response: acknowledgement() },
  { name: 'getRepositoryConfigs', summary: 'All repository configurations', http: { method: 'GET', path: '/prebuilts-repository/configs' }, roles: ADMIN, query: listQuerySchema, response: listOf('repository configuration, without credentials') },
  {
    name: 'updateRepositoryConfig',
    summary: 'Update a repository configuration',
    http: { method: 'PATCH', path: '/prebuilts-repository/configs/:name' },
    roles: ADMIN,
    body: obj({ config: anyObject('members to change') }, ['config']),
    response: record('repository configuration, without credentials'),
  },
  {
    name: 'getRepositoryPrebuilts',
    summary: 'All prebuilts of a repository',
    http: { method: 'GET', path: '/prebuilts-repository' },
    roles: ADMIN,
    query: obj({ ...listQuerySchema.properties, config: str({ description: 'repository configuration name; the default one when absent' }) }),
    response: resultsOf(embed(prebuiltDescriptorSchema)),
    timeoutMs: TIMEOUTS_MS.device,
  },
  // metrics and health
  {
    name: 'getExporterMetrics',
    summary: 'Build and return all metrics',
    http: { method: 'GET', path: '/exporter_metrics' },
    roles: ADMIN,
    response: str({ description: 'Prometheus text exposition format' }),
    contentType: 'text/plain; version=0.0.4',
    timeoutMs: TIMEOUTS_MS.short,
  },
  {
    name: 'getServerHealth',
    summary: 'Health of the server',
    http: { method: 'GET', path: '/health/server' },
    roles: ROLE_SETS.any,
    response: obj({ release: str({ description: 'YYYY.N.P' }), uptime: num({ description: 'seconds' }) }),
    timeoutMs: TIMEOUTS_MS.short,
    notes: 'Any authenticated caller: the platform\'s existing clients (the GitHub Actions, the MCP server) read release here to choose the routes they call, with the account they run automations with.',
  },
  {
    name: 'getHealthStatus',
    summary: 'Overall status: the bus, the store and the services',
    http: { method: 'GET', path: '/health/status' },
    roles: ADMIN,
    response: obj(
      {
        status: oneOf(['running', 'degraded'], { description: 'running when the bus is connected and every service answers' }),
        timestamp: num({ description: 'epoch milliseconds' }),
        services: arr(obj({ service: str(), status: str() }, ['service', 'status']), { description: 'bus and store' }),
        apps: str({ description: 'running when every application answers, degraded otherwise' }),
        applications: arr(obj({ name: str(), state: str() }, ['name', 'state'])),
      },
      ['status', 'timestamp', 'services', 'apps', 'applications'],
    ),
    timeoutMs: TIMEOUTS_MS.short,
    addition: true,
  },
  { name: 'getSystemHealth', summary: 'Health of the system', http: { method: 'GET', path: '/health/system' }, roles: ADMIN, response: record('system health: platform, memory, load, dependencies'), timeoutMs: TIMEOUTS_MS.short },
  // authentication (additions)
  {
    name: 'login',
    summary: 'Log in with a username and password; answers the token',
    http: { method: 'POST', path: '/login' },
    roles: [],
    auth: 'public',
    body: loginBodySchema,
    response: loginResultSchema,
    timeoutMs: 10_000,
    addition: true,
    contentType: 'text/plain',
    notes:
      'Body { user: { username, password } } or flat { username, password }. The token is answered as the bare token in text/plain (what existing clients read as the token) ' +
      'and set as an HttpOnly token cookie. A token sent back wrapped in double quotes is accepted too.',
  },
  {
    name: 'oauthToken',
    summary: 'Get an access token with the client credentials grant',
    http: { method: 'POST', path: '/oauth/token' },
    roles: [],
    auth: 'public',
    accepts: ['application/x-www-form-urlencoded'],
    body: oauthTokenBodySchema,
    response: oauthTokenResultSchema,
    timeoutMs: 10_000,
    addition: true,
    notes: 'Form-encoded body only; a JSON body is 415.',
  },
  { name: 'whoami', summary: 'The calling account', http: { method: 'GET', path: '/whoami' }, roles: ROLE_SETS.any, response: whoamiSchema, timeoutMs: TIMEOUTS_MS.short, addition: true },
  { name: 'mySession', summary: 'The session of the calling credentials', http: { method: 'GET', path: '/mySession' }, roles: ROLE_SETS.any, response: sessionSchema, timeoutMs: TIMEOUTS_MS.short, addition: true },
  {
    name: 'logout',
    summary: 'End the session of the calling token',
    http: { method: 'GET', path: '/logout' },
    roles: ROLE_SETS.any,
    response: acknowledgement(),
    timeoutMs: TIMEOUTS_MS.short,
    addition: true,
    notes: 'Revokes the session (event sessionRevoked) and clears the token cookie.',
  },
  {
    name: 'authenticate',
    summary: 'Check a username and password; answers the identity',
    roles: [],
    auth: 'public',
    body: authenticateBodySchema,
    response: identitySchema,
    timeoutMs: 10_000,
    addition: true,
    notes: 'Bus-only, called by the gateway for /login and Basic credentials. Wrong credentials: 401 UNAUTHENTICATED, without saying which part was wrong.',
  },
  {
    name: 'resolveSession',
    summary: 'Resolve a session id to the identity behind it',
    roles: [],
    auth: 'public',
    body: resolveSessionBodySchema,
    response: identitySchema,
    timeoutMs: TIMEOUTS_MS.short,
    addition: true,
    notes: 'Bus-only. An unknown, expired or revoked session: 401 UNAUTHENTICATED.',
  },
  {
    name: 'getTokenKeys',
    summary: 'Public keys that verify tokens',
    roles: [],
    auth: 'public',
    body: closed({}),
    response: tokenKeysSchema,
    timeoutMs: TIMEOUTS_MS.short,
    addition: true,
    notes: 'Bus-only. The gateway verifies tokens locally with these keys and refetches them on an unknown kid.',
  },
  // outside systems (additions): admin holds the credentials, so other services ask it to call
  {
    name: 'callAdapter',
    summary: 'Send one HTTP request through an adapter; the adapter adds its authentication',
    roles: ADMIN,
    body: callAdapterBodySchema,
    response: embed(outboundResponseSchema),
    timeoutMs: TIMEOUTS_MS.device,
    addition: true,
    notes: 'Bus-only, for orch-proxy and other services: the answer is whatever the system answered (any status); no secret crosses the bus. 409 ADAPTER_NOT_RUNNING unless the adapter is RUNNING.',
  },
  {
    name: 'runTask',
    summary: 'Run a workflow task whose app is an integration or an adapter',
    roles: ADMIN,
    body: runTaskBodySchema,
    response: embed(runTaskResultSchema),
    timeoutMs: TIMEOUTS_MS.device,
    addition: true,
    notes: 'Bus-only, for the workflow engine. A non-2xx answer is 502 INTEGRATION_CALL_FAILED with { status, headers, body } in details.',
  },
]);
