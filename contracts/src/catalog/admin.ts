import { ROLE_NAMES, ROLE_SETS } from '../roles';
import { PRINTABLE_NAME_PATTERN, withPrintableNames } from '../names';
import {
  acknowledgement,
  anyObject,
  arr,
  bool,
  closed,
  describedPattern,
  embed,
  int,
  name,
  num,
  obj,
  oneOf,
  open,
  printableName,
  resultsOf,
  str,
  strings,
  Type,
  withId,
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
} from '../schemas/auth';
import {
  integrationSettingsSchema,
  integrationListSchema,
  integrationModelSchema,
  integrationPropertiesSchema,
  integrationRecordSchema,
  loggerPropsSchema,
  modelValidationSchema,
} from '../schemas/integration';
import {
  ADAPTER_CONNECTIONS,
  ADAPTER_TYPES,
  adapterDataSchema,
  adapterHealthSchema,
  adapterRecordSchema,
  callAdapterBodySchema,
  outboundResponseSchema,
  runTaskBodySchema,
  runTaskResultSchema,
} from '../schemas/adapter';
import {
  prebuiltDescriptorSchema,
  prebuiltImportOptionsSchema,
  prebuiltPackageSchema,
  prebuiltRecordSchema,
  prebuiltValidationSchema,
} from '../schemas/prebuilt';
import {
  applicationChangeSchema,
  applicationHealthSchema,
  applicationLifecycleSchema,
  applicationPropertiesBodySchema,
  applicationRecordSchema,
  applicationUpdateBodySchema,
  declaredIndexesSchema,
  indexCreationSchema,
  indexStatusSchema,
  logLevelBodySchema,
} from '../schemas/application';
import {
  profileChangeSchema,
  profileRecordSchema,
  profileSchema,
  repositoryConfigSchema,
  repositoryConfigViewSchema,
} from '../schemas/profile';
import { linkInputSchema, linkPatchSchema, linkSchema } from '../schemas/link';
import { listQuerySchema, queryOptionsSchema } from '../schemas/query';
import {
  samlAcsBodySchema,
  ssoCallbackQuerySchema,
  ssoLoginQuerySchema,
  ssoMethodsSchema,
  ssoRedirectSchema,
  ssoSignedInSchema,
} from '../schemas/sign-in';
import { defineOperations, noQuery, TIMEOUTS_MS } from './define';
import { auditExportQuerySchema, auditPageSchema, auditQuerySchema, auditRecordSchema, auditVerificationSchema } from '../schemas/audit';

const ADMIN = ROLE_SETS.admin;

/**
 * The query of the admin list routes: the shared list options and no other member, so that a
 * filter a route does not serve (`in[name]=…`, `gt[created]=…`, `include=…`, a misspelt member) is
 * refused with 400 VALIDATION_FAILED naming it (`query.in`), never ignored with every record
 * answered. A field outside a route's filter fields (`equals[nosuch]=x`) is refused the same way
 * (`query.equals[nosuch]`), and so is a sort outside its sort fields (`query.sort`).
 */
const listQuery = closed({ ...listQuerySchema.properties });

/** What the notes of a list route say about its query: the fields it filters and sorts on, and that nothing else is taken. */
function listNotes(filter: string, sort: string): string {
  return (
    `Filter fields: ${filter} (equals, contains, startsWith: as text with equalsField/containsField/startsWithField, or field-wise: equals[name]=x); sort: ${sort}; skip, limit, order. ` +
    'Any other member (in[...], gt[...], include, …), filter field or sort field is refused with 400 VALIDATION_FAILED naming it.'
  );
}

/** The notes of a route that answers its whole list and takes no query member (other than `token`). */
const NO_QUERY_NOTE = 'No query member is taken (other than token): one is refused with 400 VALIDATION_FAILED naming it.';

const ACCOUNT_LIST_NOTES =
  'Sorted by username, letter case aside (Alice, bob, Zed), the same on every store; sort by lastLogin for an access review. ' +
  listNotes('username, _id, email, firstname, lastname', 'username, _id, created, lastLogin');
const GROUP_LIST_NOTES = 'Sorted by name, letter case aside. ' + listNotes('name, _id, description', 'name, _id, created');
/** The rule that keeps an administrator, on every change that could take the role from the last one. */
const KEEPS_AN_ADMINISTRATOR =
  '422 ACCOUNT_PROTECTED when the change would leave no active account with the admin role. Such changes (groups of accounts, roles and deletion of groups, deactivating and deleting accounts) run one at a time across every admin replica, so two sent together cannot both pass; ' +
  '504 TIMEOUT (retryable, nothing changed) when another one held them past the request deadline.';

/**
 * The note of every change of accounts, groups, roles and profiles a custom role may allow (`note`
 * first, when the operation has one of its own): what such a caller may not give or change.
 */
function delegated(note?: string): string {
  const rule =
    '403 ESCALATION_REFUSED when a caller without the admin role (one whose custom roles allow this operation) would give someone what it may not do itself ' +
    '(a built-in role, a custom role or a method, to a group, in a role, or through a group an account joins), or change an account or a group that may do more than it; profiles only an administrator changes.';
  return note === undefined ? rule : `${note} ${rule}`;
}

/** Text people choose that shows beside a name (an account's first and last name): may be empty, one line of printable text. */
function printableText() {
  return str({ pattern: PRINTABLE_NAME_PATTERN, description: 'one line of printable text' });
}

/** A record whose fields the spec does not show. */
function record(description: string) {
  return anyObject(description);
}

/** Who made a record and last changed it, and when: the server keeps them. */
const stamps = {
  created: str({ format: 'date-time' }),
  createdBy: str({ description: 'the username, or system / the sign-in method that made it' }),
  lastUpdated: str({ format: 'date-time' }),
  lastUpdatedBy: str(),
};

/** A custom role a group gives, by its `_id` (Itential's `assignedRoles` member). */
const assignedRole = closed({ roleId: name('the _id of a custom role (GET /authorization/roles)') }, ['roleId']);

const groupRecord = obj(
  {
    _id: str(),
    name: str(),
    description: str(),
    roles: arr(oneOf(ROLE_NAMES)),
    assignedRoles: arr(assignedRole, { description: 'the custom roles it gives; absent when none was ever given' }),
    provenance: str(),
    ...stamps,
  },
  [],
  { description: 'group record' },
);

/** What a group's name must be, wherever a group is made. */
const groupName = () =>
  str({
    minLength: 1,
    maxLength: 256,
    pattern: PRINTABLE_NAME_PATTERN,
    description:
      'group name: unique whatever its letter case, at most 256 characters, one line of printable text (no control, line-separator or bidirectional formatting character), not only whitespace nor with whitespace at either end',
  });

/** A method a role allows, as Itential names it: the application (`provenance`) and the method's name. */
const roleMethod = closed(
  {
    name: str({ minLength: 1, maxLength: 256, description: "the method's name, as GET /authorization/methods lists it" }),
    provenance: str({
      minLength: 1,
      maxLength: 256,
      description: 'the application that has the method (WorkFlowEngine, OperationsManager, AdminEssentials, …)',
    }),
  },
  ['name', 'provenance'],
);
/** A console view a role allows (kept as given: NAP's console shows what the caller's operations allow). */
const roleView = closed({ provenance: str({ maxLength: 256 }), path: str({ maxLength: 1024 }) }, ['provenance', 'path']);
const CUSTOM_PROVENANCE = 'Custom';
const BUILT_IN_PROVENANCE = 'NAP';
const roleMembers = {
  _id: str({ description: 'ignored: a role made here gets a new _id (an export carries none)' }),
  name: str({
    minLength: 1,
    maxLength: 256,
    pattern: PRINTABLE_NAME_PATTERN,
    description:
      'unique whatever its letter case among custom and built-in roles, at most 256 characters, one line of printable text, no whitespace at either end',
  }),
  description: str({ maxLength: 4096 }),
  provenance: str({ description: `${CUSTOM_PROVENANCE} (what every role made here is; absent means ${CUSTOM_PROVENANCE})` }),
  allowedMethods: arr(roleMethod, { maxItems: 2000, description: 'the operations a member of a group given the role may call' }),
  allowedViews: arr(roleView, { maxItems: 2000 }),
};
const roleRecord = obj(
  {
    _id: str({ description: 'a custom role: 24 hex digits; a built-in role: its name' }),
    name: str(),
    description: str(),
    provenance: str({ description: `${CUSTOM_PROVENANCE} for a custom role, ${BUILT_IN_PROVENANCE} for a built-in one` }),
    builtIn: bool({ description: 'true for the six roles of NAP, which are read-only' }),
    allowedMethods: arr(obj({ name: str(), provenance: str() }, ['name', 'provenance'])),
    allowedViews: arr(obj({ provenance: str(), path: str() }, ['provenance', 'path'])),
    ...stamps,
  },
  ['_id', 'name', 'description', 'provenance', 'builtIn', 'allowedMethods', 'allowedViews'],
  { description: 'role record' },
);
const ROLE_NOTES =
  `A custom role (provenance ${CUSTOM_PROVENANCE}) allows exactly the operations of its allowedMethods to the members of the groups given it (PUT /user-management/groups/:groupId/assigned-roles, or assignedRoles of POST /authorization/groups), on top of the built-in roles of their groups; ` +
  'a method is { provenance, name } as GET /authorization/methods lists it: provenance the application, name the operation (docs/administration.md). ' +
  `The six built-in roles are listed too (provenance ${BUILT_IN_PROVENANCE}, _id their name, builtIn true, the methods they allow) and are read-only.`;

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
    roles: arr(oneOf(ROLE_NAMES), { description: 'the roles its groups give (how roles reach a caller)' }),
    lastLogin: str({
      format: 'date-time',
      description: 'the last successful sign-in, by any method; absent when the account never signed in',
    }),
    failedLogins: int({
      minimum: 0,
      description: 'failed logins counted now for the username (login protection); 0 when none. POST …/unlock forgets them',
    }),
    lockedUntil: str({
      format: 'date-time',
      description: 'present while a login of the account is answered 429 LOGIN_THROTTLED: until when',
    }),
    ...stamps,
  },
  [],
  { description: 'account record; never carries a password or its hash' },
);

const accountSession = obj(
  {
    id: str({ description: 'the reference of the session: not its token, and no use as one' }),
    method: str({ description: 'how it began: login (POST /login), oauth (POST /oauth/token) or sso (a browser sign-in)' }),
    provenance: str({ description: 'the sign-in method that confirmed the person, for an account of one' }),
    created: str({ format: 'date-time' }),
    lastUsed: str({ format: 'date-time', description: 'the last request it was used for, to the minute' }),
    expires: str({ format: 'date-time' }),
    address: str({ description: 'the address it began from, as the gateway saw it' }),
    userAgent: str({ description: "the client's User-Agent when it began" }),
  },
  ['id', 'method', 'created', 'lastUsed', 'expires'],
  { description: 'a live session of an account; its token is never answered' },
);

const bytes = (description: string) => num({ minimum: 0, description: `${description}, bytes` });
const serverHealth = obj(
  {
    release: str({ description: 'YYYY.N.P' }),
    version: str({ description: 'the release again, as older clients read it' }),
    uptime: num({ description: 'seconds the answering process has run' }),
    status: oneOf(['running', 'degraded'], { description: 'degraded while the answering process is cut off from the bus' }),
    node: str({ description: 'the Node.js version' }),
    pid: int(),
    hostname: str(),
    bus: obj({ kind: str({ description: 'memory (standalone) or nats' }), connected: bool() }, ['kind', 'connected']),
    store: obj(
      {
        kind: str({ description: 'embedded or mongodb' }),
        disk: obj(
          { freeBytes: bytes('free'), totalBytes: bytes('the volume'), minFreeBytes: bytes('the least free space writes are taken with') },
          ['freeBytes', 'totalBytes', 'minFreeBytes'],
          { description: "the embedded store's volume; absent on MongoDB" },
        ),
      },
      ['kind'],
    ),
    memory: obj({ rss: bytes('resident'), heapTotal: bytes('heap'), heapUsed: bytes('heap used'), external: bytes('outside the heap') }, [
      'rss',
      'heapTotal',
      'heapUsed',
      'external',
    ]),
    cpu: obj({ user: num({ description: 'µs' }), system: num({ description: 'µs' }) }, ['user', 'system']),
  },
  ['release', 'uptime'],
  { description: 'the platform release and the admin replica that answered' },
);
const systemHealth = obj(
  {
    arch: str(),
    platform: str(),
    release: str({ description: "the operating system's release" }),
    hostname: str(),
    uptime: num({ description: 'seconds the host has run' }),
    freemem: bytes('free memory'),
    totalmem: bytes('memory'),
    loadavg: arr(num(), { description: 'the 1, 5 and 15 minute load averages' }),
    cpus: arr(anyObject('a CPU: model, speed (MHz), times')),
  },
  [],
  { description: 'the host of the admin replica that answered' },
);

/** Health of one adapter; its connection as `{ state }`, as the platform answers it (ipctl decodes it so). */
const adapterHealth = obj(
  {
    ...adapterHealthSchema.properties,
    connection: obj(
      { state: oneOf(ADAPTER_CONNECTIONS, { description: 'ONLINE, OFFLINE, or UNKNOWN before the first check and while stopped' }) },
      ['state'],
    ),
  },
  ['name', 'state', 'connection', 'uptime', 'lastError'],
  { description: 'health of one adapter' },
);
const adapterRecord = embed(adapterRecordSchema);
/**
 * The adapter document of a create, import (`name`: the name it gets) or update (`name`: the one it
 * keeps, which the service compares with the path's). Its name and model print in lists and logs:
 * one line of printable text ({@link withPrintableNames}); an update's name is checked against the
 * path instead, so that an adapter named before the rule can still be changed.
 */
const adapterBody = (names: readonly ('name' | 'model')[]) =>
  obj({ properties: withPrintableNames(embed(adapterDataSchema), names) }, ['properties']);
/** `names`: the members checked as printable names, as for {@link adapterBody}. */
const integrationBody = (names: readonly 'name'[]) =>
  closed({ properties: withPrintableNames(embed(integrationPropertiesSchema), names) }, ['properties']);
/** The members of an integration record the platform sets: ipctl's Integration struct sends them (null when it read none); taken, not kept. */
const platformSet = (description: string) => Type.Union([Type.Null(), anyObject(description)]);
/**
 * `POST /integrations`: NAP's `{ name, model, type, properties: <settings> }`, or the record as
 * ipctl's Integration struct writes it (`model` empty, the model in `properties.type`, the settings
 * in `properties.properties`, the platform's own members beside).
 */
const newIntegrationBody = closed(
  {
    properties: withPrintableNames(
      closed({
        ...integrationPropertiesSchema.properties,
        model: str({ description: 'versionId of the integration model; empty when properties.type names it (ipctl)' }),
        properties: closed({
          ...integrationSettingsSchema.properties,
          id: str({ description: 'ipctl: the name' }),
          type: str({ description: 'ipctl: the versionId of the model' }),
          properties: embed(integrationSettingsSchema, { description: 'ipctl: the settings' }),
        }),
        isEncrypted: bool({ description: 'the platform sets it' }),
        virtual: bool({ description: 'the platform sets it' }),
        profiling: bool({ description: 'the platform sets it' }),
        loggerProps: platformSet('the platform sets it'),
        systemProps: platformSet('the platform sets it'),
        eventDeduplication: platformSet('the platform sets it'),
      }),
      ['name'],
    ),
  },
  ['properties'],
);
/**
 * An OpenAPI document. Its `info.title` and `info.version` name the model (`<title>:<version>`, its
 * id in paths) and its tasks' app: where a document is taken as a new model (`printable`), each
 * that is a string is one line of printable text (400 naming body.model.info.title and the
 * character). Only the pattern: that they are there and strings is the service's check of the
 * document (400 INTEGRATION_MODEL_INVALID).
 */
const modelBody = (printable: boolean) => {
  // every JSON type: the pattern and the members apply to a text and an object, and any other value
  // is left to the service's check (Ajv's strict mode wants the types a keyword applies to named)
  const anyType = ['object', 'array', 'string', 'number', 'boolean', 'null'];
  const names = { title: { type: anyType, pattern: PRINTABLE_NAME_PATTERN }, version: { type: anyType, pattern: PRINTABLE_NAME_PATTERN } };
  return obj(
    {
      model: Type.Unsafe<Record<string, unknown>>({
        type: 'object',
        description: 'OpenAPI 2.0, 3.0 or 3.1 document',
        ...(printable ? { properties: { info: { type: anyType, properties: names } } } : {}),
      }),
    },
    ['model'],
  );
};
const integrationModel = obj(
  { ...integrationModelSchema.properties, model: str({ description: 'its versionId: the name the other routes take' }) },
  ['versionId', 'title', 'version'],
  { description: 'an integration model' },
);
const changelogs = resultsOf(obj({ version: str(), date: str(), changes: str() }));
const logLevelBody = embed(logLevelBodySchema);
const applicationRecord = embed(applicationRecordSchema);
const applicationChange = embed(applicationChangeSchema);
const applicationLifecycle = embed(applicationLifecycleSchema);
const applicationHealth = embed(applicationHealthSchema);
const link = embed(linkSchema);
/** A profile as created (`names`: ['id'], the name it gets) or updated (its id is the path's, compared by the service). */
const profileBody = (names: readonly 'id'[]) => closed({ properties: withPrintableNames(embed(profileSchema), names) }, ['properties']);
const profileRecord = embed(profileRecordSchema);
const profileChange = embed(profileChangeSchema);
const prebuiltPackage = embed(prebuiltPackageSchema);
/** A package taken as a new prebuilt (import, its validation): its name and version print in lists, one line of printable text each. */
const newPrebuiltBody = obj(
  {
    prebuilt: withPrintableNames(prebuiltPackage, ['metadata.name', 'metadata.version']),
    options: embed(prebuiltImportOptionsSchema),
  },
  ['prebuilt'],
);
/** An installed prebuilt, with the members of its metadata the platform also answers at the top level (ipctl finds a prebuilt by `name`). */
const prebuiltRecord = open(
  {
    ...prebuiltRecordSchema.properties,
    name: str({ description: 'metadata.name' }),
    version: str({ description: 'metadata.version' }),
    description: str({ description: 'metadata.description' }),
    author: str({ description: 'metadata.author' }),
    license: str({ description: 'metadata.license' }),
    keywords: strings({ description: 'metadata.keywords' }),
  },
  ['_id', 'metadata', 'components', 'name', 'version'],
  { description: 'an installed prebuilt' },
);
const repositoryConfigView = embed(repositoryConfigViewSchema);
const repositoryPrebuilt = obj(
  {
    repository: str({ description: 'the repository configuration it comes from' }),
    metadata: anyObject('the package metadata'),
    manifest: anyObject(),
    readme: str(),
    bundles: arr(anyObject(), { description: 'only when one package is asked for by name' }),
    installed: Type.Union([Type.Null(), obj({ id: str(), version: str() }, ['id', 'version'])], {
      description: 'the installed prebuilt of that name, if any',
    }),
  },
  ['repository', 'metadata', 'installed'],
);
const APPLICATION_NOTES =
  'Applications are the names the original platform gives its services (WorkFlowEngine, OperationsManager, AutomationStudio, TemplateBuilder, Jst, MOP, ConfigurationManager, AGManager, OrchManager, FormBuilder, JsonForms, AdminEssentials, …), each served by one NAP service; ' +
  "state and instances come from live discovery of that service's replicas: RUNNING, STOPPED (stopped by an operator) or DEAD (no replica answers).";
const adapterLifecycle = obj(
  { name: str(), state: str({ description: 'STARTING, STOPPING, …: the change has begun; GET /health/adapters/:name follows it' }) },
  ['name', 'state'],
);

/** `GET /whoami`: the account, `id` beside `_id`, its groups named (Itential's shape, which ipctl decodes). */
const whoamiAnswer = withId(
  'nap:schemas/whoami-account',
  obj(
    {
      id: str({ description: 'the account id (system for the platform acting on its own)' }),
      _id: str(),
      username: str(),
      firstname: str(),
      lastname: str(),
      email: str(),
      roles: arr(oneOf(ROLE_NAMES), { uniqueItems: true }),
      groups: arr(obj({ id: str(), name: str(), provenance: str() }, ['id', 'name', 'provenance']), {
        description: 'the groups of the account: provenance the sign-in method that brought the group in, NAP for one made here',
      }),
      provenance: str({
        description:
          'the sign-in method (LDAP, RADIUS, OIDC, SAML) that brought the account in and keeps its password; absent for an account whose password NAP keeps (PUT /whoami/password changes it)',
      }),
      operations: arr(str(), {
        description:
          'the operations (catalog ids) the custom roles of its groups allow beside its roles, as the gateway checks them; absent when they allow none',
      }),
    },
    ['id', 'username', 'roles', 'groups'],
  ),
);

/**
 * Operations of the `admin` service: accounts, groups and roles, adapters, applications,
 * integrations and their models, profiles, prebuilts and repositories, external links, indexes,
 * health, metrics, and authentication. Platform administration has one line per route of the spec's
 * table, with payloads designed where the spec shows none; the authentication routes and bus
 * operations at the end are additions of this platform.
 */
export const ADMIN_OPERATIONS = defineOperations('admin', [
  // indexes
  {
    name: 'checkIndexes',
    summary: 'Status of predefined indexes of a collection',
    http: { method: 'GET', path: '/indexes/:collection/status' },
    roles: ADMIN,
    params: { collection: name('a collection some service declares indexes for (GET /indexes), or <service>.<collection>') },
    response: embed(indexStatusSchema),
    timeoutMs: TIMEOUTS_MS.lifecycle,
    notes:
      'Asked of a replica of the owning service, which compares its declared indexes with what its store (MongoDB or the embedded store) has.',
  },
  {
    name: 'createIndexes',
    summary: 'Create the predefined indexes of a collection',
    http: { method: 'POST', path: '/indexes/:collection' },
    roles: ADMIN,
    params: { collection: name('a collection some service declares indexes for, or <service>.<collection>') },
    response: embed(indexCreationSchema),
    timeoutMs: TIMEOUTS_MS.long,
    notes:
      'Creates the missing declared indexes and makes misnamed ones again under their declared name; indexes nobody declared are left alone. Built before the answer (running is 0).',
  },
  {
    name: 'getIndexes',
    summary: 'All predefined indexes',
    http: { method: 'GET', path: '/indexes' },
    roles: ADMIN,
    query: noQuery(),
    response: resultsOf(embed(declaredIndexesSchema)),
    timeoutMs: TIMEOUTS_MS.short,
    notes: `What each running service declares, by collection. ${NO_QUERY_NOTE}`,
  },
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
            username: printableName('unique login name, one line of printable text'),
            password: str({
              minLength: 1,
              description:
                "at least the active profile's authenticationProps.passwordRules.minLength characters (12 by default, never fewer than 8); stored as a scrypt hash, never returned",
            }),
            firstname: printableText(),
            lastname: printableText(),
            email: str(),
            groups: strings({ description: 'group ids' }),
          },
          ['username', 'password'],
        ),
      },
      ['account'],
    ),
    response: createdResultSchema('nap:schemas/account-created', accountRecord),
    notes: delegated(),
  },
  {
    name: 'deleteAccount',
    summary: 'Delete an account',
    http: { method: 'DELETE', path: '/user-management/accounts/:accountId' },
    roles: ADMIN,
    response: acknowledgement(),
    notes: delegated(`422 ACCOUNT_PROTECTED for the caller's own account. ${KEEPS_AN_ADMINISTRATOR}`),
  },
  {
    name: 'getAccount',
    summary: 'Get an account',
    http: { method: 'GET', path: '/user-management/accounts/:accountId' },
    roles: ADMIN,
    response: accountRecord,
  },
  {
    name: 'getAccounts',
    summary: 'All accounts',
    http: { method: 'GET', path: '/user-management/accounts' },
    roles: ADMIN,
    query: listQuery,
    response: resultsOf(accountRecord),
    notes: ACCOUNT_LIST_NOTES,
  },
  {
    name: 'getAuthorizationAccounts',
    summary: "All accounts (the platform's own name for GET /user-management/accounts)",
    http: { method: 'GET', path: '/authorization/accounts' },
    roles: ADMIN,
    query: listQuery,
    response: resultsOf(accountRecord),
    addition: true,
    notes: ACCOUNT_LIST_NOTES,
  },
  {
    name: 'getAuthorizationAccount',
    summary: "Get an account (the platform's own name for GET /user-management/accounts/:accountId)",
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
    body: obj({ groups: strings({ uniqueItems: true, description: "group ids; replaces the account's groups" }) }, ['groups']),
    response: accountRecord,
    notes: delegated(KEEPS_AN_ADMINISTRATOR),
  },
  {
    name: 'setAccountPassword',
    summary: 'Change password of an account',
    http: { method: 'PUT', path: '/user-management/accounts/:accountId/password' },
    roles: ADMIN,
    body: obj(
      {
        password: str({
          minLength: 1,
          description:
            "the new password, at least the active profile's authenticationProps.passwordRules.minLength characters (12 by default, never fewer than 8); revokes the account's sessions",
        }),
      },
      ['password'],
    ),
    response: acknowledgement(),
    notes: delegated(),
  },
  {
    name: 'updateAccount',
    summary: 'Update an account',
    http: { method: 'PATCH', path: '/authorization/accounts/:accountId' },
    roles: ADMIN,
    body: closed({ firstname: printableText(), lastname: printableText(), email: str(), inactive: bool() }, [], {
      minProperties: 1,
      description: 'members to change; an inactive account cannot log in and its sessions end',
    }),
    response: accountRecord,
    notes: delegated(`inactive: true: ${KEEPS_AN_ADMINISTRATOR}`),
  },
  {
    name: 'unlockAccount',
    summary: 'Let an account log in again at once after failed logins',
    http: { method: 'POST', path: '/user-management/accounts/:accountId/unlock' },
    roles: ADMIN,
    response: acknowledgement(),
    addition: true,
    notes:
      "Forgets the failed logins counted for the account's username, so its next login is not answered 429 LOGIN_THROTTLED. " +
      'Failures counted for a source address are not forgotten: they end on their own (docs/security.md).',
  },
  {
    name: 'getAccountSessions',
    summary: "An account's live sessions: when and where each began, when it was last used",
    http: { method: 'GET', path: '/user-management/accounts/:accountId/sessions' },
    roles: ADMIN,
    query: noQuery(),
    response: resultsOf(accountSession),
    addition: true,
    notes:
      'The sessions a token or cookie of the account may still use (not ended, expired or idle beyond the limit), newest first. ' +
      'Each is named by a reference that is no token and cannot be used as one; Basic credentials open no session. ' +
      NO_QUERY_NOTE,
  },
  {
    name: 'endAccountSessions',
    summary: 'End every session of an account (a lost laptop, a leaked token)',
    http: { method: 'DELETE', path: '/user-management/accounts/:accountId/sessions' },
    roles: ADMIN,
    response: acknowledgement(),
    addition: true,
    notes: delegated(
      'Every token of the account is refused from now on, on every gateway; the account may log in again. ' +
        'Basic credentials are not sessions: change the password (which also ends the sessions) or make the account inactive.',
    ),
  },
  {
    name: 'endAccountSession',
    summary: 'End one session of an account',
    http: { method: 'DELETE', path: '/user-management/accounts/:accountId/sessions/:sessionId' },
    roles: ADMIN,
    response: acknowledgement(),
    addition: true,
    notes: delegated(
      'sessionId is the reference GET …/sessions answers; 404 SESSION_NOT_FOUND when the account has no live session of it.',
    ),
  },
  // groups
  {
    name: 'createGroup',
    summary: 'Create a group',
    http: { method: 'POST', path: '/user-management/groups' },
    roles: ['admin'],
    body: closed(
      {
        group: obj(
          {
            name: str({
              minLength: 1,
              maxLength: 256,
              pattern: PRINTABLE_NAME_PATTERN,
              description:
                'group name: unique whatever its letter case, at most 256 characters, one line of printable text (no control, line-separator or bidirectional formatting character), not only whitespace nor with whitespace at either end',
            }),
            description: str(),
            roles: arr(oneOf(ROLE_NAMES)),
            assignedRoles: arr(assignedRole, { uniqueItems: true, description: 'custom roles the group gives' }),
          },
          ['name'],
        ),
      },
      ['group'],
    ),
    response: createdResultSchema(
      'nap:schemas/group-created',
      Type.Union([groupRecord, embed(prebuiltDescriptorSchema)], {
        description: "the created group (the spec's example shows a prebuilt descriptor here)",
      }),
    ),
    notes: delegated(
      '"No other member" applies to the top level; other members of group (description, roles, assignedRoles: custom roles by roleId, 400 naming the member when one does not exist) are accepted. ' +
        '400 VALIDATION_FAILED naming body.group.name when the name is only whitespace, holds a control, line-separator or bidirectional formatting character (the message names it as U+XXXX), begins or ends with whitespace, or is longer than 256 characters; ' +
        '409 GROUP_ALREADY_EXISTS also for a name that differs from an existing one only in letter case.',
    ),
  },
  {
    name: 'deleteGroup',
    summary: 'Delete a group',
    http: { method: 'DELETE', path: '/user-management/groups/:groupId' },
    roles: ADMIN,
    response: acknowledgement(),
    notes: delegated(KEEPS_AN_ADMINISTRATOR),
  },
  {
    name: 'getGroup',
    summary: 'Get a group',
    http: { method: 'GET', path: '/user-management/groups/:groupId' },
    roles: ADMIN,
    response: groupRecord,
  },
  {
    name: 'getGroups',
    summary: 'All groups',
    http: { method: 'GET', path: '/user-management/groups' },
    roles: ADMIN,
    query: listQuery,
    response: resultsOf(groupRecord),
    notes: GROUP_LIST_NOTES,
  },
  {
    name: 'getAuthorizationGroups',
    summary: "All groups (the platform's own name for GET /user-management/groups)",
    http: { method: 'GET', path: '/authorization/groups' },
    roles: ADMIN,
    query: listQuery,
    response: resultsOf(groupRecord),
    addition: true,
    notes: GROUP_LIST_NOTES,
  },
  {
    name: 'getAuthorizationGroup',
    summary: "Get a group (the platform's own name for GET /user-management/groups/:groupId)",
    http: { method: 'GET', path: '/authorization/groups/:groupId' },
    roles: ADMIN,
    response: groupRecord,
    addition: true,
  },
  {
    name: 'createAuthorizationGroup',
    summary: "Create a group (the platform's own name for POST /user-management/groups, as ipctl sends it)",
    http: { method: 'POST', path: '/authorization/groups' },
    roles: ADMIN,
    body: closed(
      {
        group: closed(
          {
            name: groupName(),
            description: str(),
            provenance: str({ description: 'ignored (ipctl sends Pronghorn): a group made here comes from no sign-in method' }),
            roles: arr(oneOf(ROLE_NAMES), { uniqueItems: true }),
            assignedRoles: arr(assignedRole, { uniqueItems: true, description: 'custom roles the group gives' }),
            inactive: bool({ description: 'false or absent: a NAP group is never inactive' }),
            memberOf: arr(anyObject(), { maxItems: 0, description: 'empty or absent: NAP groups do not nest' }),
          },
          ['name'],
        ),
      },
      ['group'],
    ),
    response: createdResultSchema('nap:schemas/authorization-group-created', groupRecord),
    addition: true,
    notes: delegated(
      'As POST /user-management/groups, answered 200 { status: Created, message, data: the group } as ipctl checks it. ' +
        '400 VALIDATION_FAILED naming body.group.inactive when it is true, body.group.memberOf when it is not empty, body.group.assignedRoles when a roleId names no custom role; 409 GROUP_ALREADY_EXISTS for a name taken whatever its letter case.',
    ),
  },
  {
    name: 'deleteAuthorizationGroup',
    summary: "Delete a group (the platform's own name for DELETE /user-management/groups/:groupId)",
    http: { method: 'DELETE', path: '/authorization/groups/:groupId' },
    roles: ADMIN,
    response: acknowledgement(),
    addition: true,
    notes: delegated(KEEPS_AN_ADMINISTRATOR),
  },
  {
    name: 'setGroupAssignedRoles',
    summary: 'Set the custom roles of a group',
    http: { method: 'PUT', path: '/user-management/groups/:groupId/assigned-roles' },
    roles: ADMIN,
    body: closed({ assignedRoles: arr(assignedRole, { uniqueItems: true, description: "replaces the group's custom roles" }) }, [
      'assignedRoles',
    ]),
    response: groupRecord,
    addition: true,
    notes: delegated(
      'The members of the group may then call the operations those roles allow, at their next request on every gateway. ' +
        '400 VALIDATION_FAILED naming body.assignedRoles[i].roleId when it names no custom role (a built-in role is given with PUT …/roles).',
    ),
  },
  {
    name: 'setGroupRoles',
    summary: 'Set roles of a group',
    http: { method: 'PUT', path: '/user-management/groups/:groupId/roles' },
    roles: ADMIN,
    body: obj({ roles: arr(oneOf(ROLE_NAMES), { uniqueItems: true, description: "replaces the group's roles" }) }, ['roles']),
    response: groupRecord,
    notes: delegated(KEEPS_AN_ADMINISTRATOR),
  },
  {
    name: 'getAssignableRoles',
    summary: 'All assignable roles',
    http: { method: 'GET', path: '/user-management/roles' },
    roles: ADMIN,
    query: listQuery,
    response: resultsOf(obj({ name: str(), description: str() }, ['name'])),
    notes: `In the order of the roles (admin first) unless sorted. ${listNotes('name, description', 'name')}`,
  },
  {
    name: 'getRoles',
    summary: 'All roles, custom and built-in',
    http: { method: 'GET', path: '/authorization/roles' },
    roles: ADMIN,
    query: listQuery,
    response: resultsOf(roleRecord),
    addition: true,
    notes: `The built-in roles first (admin first), then the custom ones by name, letter case aside. ${ROLE_NOTES} ${listNotes('name, _id, provenance, description', 'name')}`,
  },
  {
    name: 'getRole',
    summary: 'Get a role',
    http: { method: 'GET', path: '/authorization/roles/:roleId' },
    roles: ADMIN,
    response: roleRecord,
    addition: true,
    notes: '404 ROLE_NOT_FOUND. roleId is the _id of a custom role or the name of a built-in one.',
  },
  {
    name: 'createRole',
    summary: 'Create (or import) a custom role',
    http: { method: 'POST', path: '/authorization/roles' },
    roles: ADMIN,
    body: closed({ role: closed(roleMembers, ['name']) }, ['role']),
    response: createdResultSchema('nap:schemas/role-created', roleRecord),
    addition: true,
    notes: delegated(
      `Answered 200 { status: Created, message, data: the role }, as ipctl's role create and import check it (an export posted back as it is). ${ROLE_NOTES} ` +
        '400 VALIDATION_FAILED naming body.role.allowedMethods[i] when NAP has no such method (or it is public, or any signed-in caller may call it), body.role.provenance when it is not Custom, body.role.name when it is only whitespace or has whitespace at either end; ' +
        '409 ROLE_ALREADY_EXISTS for a name taken by a custom or built-in role, whatever its letter case.',
    ),
  },
  {
    name: 'updateRole',
    summary: 'Change a custom role',
    http: { method: 'PUT', path: '/authorization/roles/:roleId' },
    roles: ADMIN,
    body: closed({ role: closed(roleMembers) }, ['role']),
    response: roleRecord,
    addition: true,
    notes: delegated(
      'The members given replace those of the role; the others stay. The members of the groups given the role may call what it allows now at their next request, on every gateway. ' +
        '404 ROLE_NOT_FOUND; 409 ROLE_BUILT_IN for a built-in role; otherwise as POST /authorization/roles.',
    ),
  },
  {
    name: 'deleteRole',
    summary: 'Delete a custom role',
    http: { method: 'DELETE', path: '/authorization/roles/:roleId' },
    roles: ADMIN,
    response: acknowledgement(),
    addition: true,
    notes:
      '409 ROLE_IN_USE naming the groups given it (take it from them first); 409 ROLE_BUILT_IN for a built-in role; 404 ROLE_NOT_FOUND.',
  },
  {
    name: 'getMethods',
    summary: 'The methods a custom role can allow',
    http: { method: 'GET', path: '/authorization/methods' },
    roles: ADMIN,
    query: listQuery,
    response: resultsOf(
      obj(
        {
          provenance: str({ description: 'the application' }),
          name: str({ description: 'the operation' }),
          deprecated: bool(),
          route: obj({ path: str(), fullPath: str(), verb: str() }, ['path', 'fullPath', 'verb']),
        },
        ['provenance', 'name', 'deprecated', 'route'],
      ),
    ),
    addition: true,
    notes:
      'Every HTTP operation that needs a role, as { provenance, name, deprecated, route: { path, fullPath, verb } }, by provenance then name; all of them unless limit is given (ipctl reads one page). ' +
      listNotes('name, provenance', 'name, provenance'),
  },
  {
    name: 'getViews',
    summary: 'Authorization views (NAP has none)',
    http: { method: 'GET', path: '/authorization/views' },
    roles: ADMIN,
    query: listQuery,
    addition: true,
    notes:
      "Answered 404 NOT_FOUND, always, with a message saying why: NAP has no authorization views. On Itential's platform a role allows console pages and manual-task views beside methods, and ipctl's `get views` lists them from this route; " +
      "NAP's console shows each page to whoever may call the operations behind it, so a role allows methods only (GET /authorization/methods lists them). " +
      'The allowedViews of a role are kept as given (an export of Itential imports unchanged) and grant nothing.',
  },
  // adapters
  {
    name: 'createAdapter',
    summary: 'Create an adapter',
    http: { method: 'POST', path: '/adapters' },
    roles: ADMIN,
    body: adapterBody(['name', 'model']),
    response: adapterRecord,
    notes: 'Body { properties: <the adapter document> }; created STOPPED.',
  },
  {
    name: 'deleteAdapter',
    summary: 'Delete an adapter',
    http: { method: 'DELETE', path: '/adapters/:name' },
    roles: ADMIN,
    response: acknowledgement(),
    timeoutMs: TIMEOUTS_MS.lifecycle,
    notes: 'Stops it first; its state becomes DELETED.',
  },
  {
    name: 'exportAdapter',
    summary: 'Export an adapter',
    http: { method: 'GET', path: '/adapters/:name/export' },
    roles: ADMIN,
    response: embed(adapterDataSchema),
    notes: 'The adapter document, secrets answered as ********; POST /adapters/import takes it back once the secrets are filled in.',
  },
  {
    name: 'getAdapter',
    summary: 'Get an adapter',
    http: { method: 'GET', path: '/adapters/:name' },
    roles: ADMIN,
    response: adapterRecord,
  },
  {
    name: 'getAdapters',
    summary: 'All adapters',
    http: { method: 'GET', path: '/adapters' },
    roles: ADMIN,
    query: listQuery,
    response: resultsOf(adapterRecord),
    notes: `Deleted adapters left out. ${listNotes('name, data.model, data.properties.type', 'name, created, lastUpdated')}`,
  },
  {
    name: 'getAdapterChangelogs',
    summary: 'Changelogs of an adapter',
    http: { method: 'GET', path: '/adapters/:name/changelogs' },
    roles: ADMIN,
    query: noQuery(),
    response: changelogs,
    notes: `One entry per change of the adapter document (create, update, import), newest first. ${NO_QUERY_NOTE}`,
  },
  {
    name: 'getAdapterModelTypes',
    summary: 'Available adapter model types',
    http: { method: 'GET', path: '/adapter-models/types' },
    roles: ADMIN,
    query: noQuery(),
    response: obj({ adapterModels: arr(oneOf(ADAPTER_TYPES)), total: int({ minimum: 0 }) }, ['adapterModels', 'total']),
    notes: `{ adapterModels, total }, as the platform answers it and ipctl reads it. ${NO_QUERY_NOTE}`,
  },
  {
    name: 'getAdapterSchema',
    summary: 'Adapter schema',
    http: { method: 'GET', path: '/schema/adapters/:name' },
    roles: ADMIN,
    response: record("JSON Schema of the adapter's connection settings"),
    notes: ':name is an adapter name or a model type (HTTP, NSO).',
  },
  {
    name: 'getBrokerMap',
    summary: 'Mapping between brokers and adapters',
    http: { method: 'GET', path: '/adapters/brokers/mapping' },
    roles: ADMIN,
    query: noQuery(),
    response: record('broker name to adapter names'),
    notes: NO_QUERY_NOTE,
  },
  {
    name: 'importAdapter',
    summary: 'Import an adapter',
    http: { method: 'POST', path: '/adapters/import' },
    roles: ADMIN,
    body: adapterBody(['name', 'model']),
    response: adapterRecord,
    notes: 'Same body as POST /adapters. A secret still masked (********) is refused: an export carries none.',
  },
  {
    name: 'restartAdapter',
    summary: 'Restart an adapter',
    http: { method: 'PUT', path: '/adapters/:name/restart' },
    roles: ADMIN,
    response: adapterLifecycle,
    timeoutMs: TIMEOUTS_MS.lifecycle,
  },
  {
    name: 'startAdapter',
    summary: 'Start an adapter',
    http: { method: 'PUT', path: '/adapters/:name/start' },
    roles: ADMIN,
    response: adapterLifecycle,
    timeoutMs: TIMEOUTS_MS.lifecycle,
    notes: 'Answers at once (STARTING); RUNNING once its first connection check has run.',
  },
  {
    name: 'stopAdapter',
    summary: 'Stop an adapter',
    http: { method: 'PUT', path: '/adapters/:name/stop' },
    roles: ADMIN,
    response: adapterLifecycle,
    timeoutMs: TIMEOUTS_MS.lifecycle,
  },
  {
    name: 'updateAdapter',
    summary: 'Update an adapter',
    http: { method: 'PUT', path: '/adapters/:name' },
    roles: ADMIN,
    body: adapterBody(['model']),
    response: adapterRecord,
    notes: 'Replaces the document (the name stays); a RUNNING adapter restarts with it.',
  },
  {
    name: 'updateAdapterLogging',
    summary: 'Update log levels of an adapter',
    http: { method: 'PUT', path: '/adapters/:name/loglevel' },
    roles: ADMIN,
    body: logLevelBody,
    response: embed(loggerPropsSchema),
    notes: 'Body { properties: { transport, level } } as the Ansible collection sends it; an unknown level is 400.',
  },
  {
    name: 'updateAdapterProperties',
    summary: 'Update properties of an adapter',
    http: { method: 'PUT', path: '/adapters/:name/properties' },
    roles: ADMIN,
    body: obj({ properties: record("connection settings of the adapter's type") }, ['properties']),
    response: adapterRecord,
    notes: 'Replaces data.properties.properties; secrets sent as ******** keep their stored value.',
  },
  {
    name: 'getAdapterHealth',
    summary: 'Health of one adapter',
    http: { method: 'GET', path: '/health/adapters/:name' },
    roles: ADMIN,
    response: adapterHealth,
    timeoutMs: TIMEOUTS_MS.short,
  },
  // the spec's GET /health/adapters
  {
    name: 'getAdaptersHealth',
    summary: 'Health of all adapters',
    http: { method: 'GET', path: '/health/adapters' },
    roles: ['admin', 'apiread'],
    query: queryOptionsSchema,
    response: obj({ results: arr(adapterHealth), total: int({ minimum: 0 }) }, [], { description: 'the adapters health data' }),
    timeoutMs: TIMEOUTS_MS.short,
    notes:
      'queryOptions arrive as flat query members, the operators as text with their *Field member (equals=x&equalsField=name); filter fields: name (also called id, as the MCP server writes it), state; sort: name. ' +
      'Any other member is refused with 400 VALIDATION_FAILED naming it. The spec does not show the shape of results; the service answers { results: [...], total } like GET /integrations.',
  },
  // applications
  {
    name: 'getApplication',
    summary: 'Get an application',
    http: { method: 'GET', path: '/applications/:name' },
    roles: ADMIN,
    response: applicationRecord,
    timeoutMs: TIMEOUTS_MS.short,
    notes: APPLICATION_NOTES,
  },
  {
    name: 'getApplications',
    summary: 'All applications',
    http: { method: 'GET', path: '/applications' },
    roles: ADMIN,
    query: listQuery,
    response: resultsOf(applicationRecord),
    timeoutMs: TIMEOUTS_MS.short,
    notes: `${APPLICATION_NOTES} ${listNotes('name, state, service, isActive', 'name, state, service')}`,
  },
  {
    name: 'getApplicationChangelogs',
    summary: 'Changelogs of an application',
    http: { method: 'GET', path: '/applications/:name/changelogs' },
    roles: ADMIN,
    query: noQuery(),
    response: changelogs,
    notes: `Changes operators made to the application's service (state, log level, settings), newest first. ${NO_QUERY_NOTE}`,
  },
  {
    name: 'getApplicationSchema',
    summary: 'Application schema',
    http: { method: 'GET', path: '/schema/applications/:name' },
    roles: ADMIN,
    response: record("JSON Schema of the application's live settings"),
    notes: 'The schema PUT /applications/:name/properties validates with.',
  },
  {
    name: 'restartApplication',
    summary: 'Restart an application',
    http: { method: 'PUT', path: '/applications/:name/restart' },
    roles: ADMIN,
    response: applicationLifecycle,
    timeoutMs: TIMEOUTS_MS.lifecycle,
    notes: 'Stops and starts every replica of the service. 409 APPLICATION_PROTECTED for AdminEssentials.',
  },
  {
    name: 'startApplication',
    summary: 'Start an application',
    http: { method: 'PUT', path: '/applications/:name/start' },
    roles: ADMIN,
    response: applicationLifecycle,
    timeoutMs: TIMEOUTS_MS.lifecycle,
    notes: 'Every replica of the service takes requests again; the answer names every application of the service.',
  },
  {
    name: 'stopApplication',
    summary: 'Stop an application',
    http: { method: 'PUT', path: '/applications/:name/stop' },
    roles: ADMIN,
    response: applicationLifecycle,
    timeoutMs: TIMEOUTS_MS.lifecycle,
    notes:
      'Every replica of the service leaves its queue group and finishes the requests it holds; its routes answer 503 until it starts, and replicas that start meanwhile stop too. The answer names every application of the service. 409 APPLICATION_PROTECTED for AdminEssentials.',
  },
  {
    name: 'updateApplication',
    summary: 'Update an application',
    http: { method: 'PUT', path: '/applications/:name' },
    roles: ADMIN,
    body: embed(applicationUpdateBodySchema),
    response: applicationChange,
    timeoutMs: TIMEOUTS_MS.lifecycle,
    notes: "Changes the description, loggerProps and live settings (properties) of the application's service; name and model stay.",
  },
  {
    name: 'updateApplicationLogging',
    summary: 'Update log levels of an application',
    http: { method: 'PUT', path: '/applications/:name/loglevel' },
    roles: ADMIN,
    body: logLevelBody,
    response: embed(loggerPropsSchema),
    timeoutMs: TIMEOUTS_MS.lifecycle,
    notes:
      'Body { properties: { transport, level } }; every replica of the service logs at the new level at once (spam is logged as trace).',
  },
  {
    name: 'updateApplicationProperties',
    summary: 'Update properties of an application',
    http: { method: 'PUT', path: '/applications/:name/properties' },
    roles: ADMIN,
    body: embed(applicationPropertiesBodySchema),
    response: applicationChange,
    timeoutMs: TIMEOUTS_MS.lifecycle,
    notes:
      'Replaces the live settings of the service (GET /schema/applications/:name); every replica applies them at once. A member that is no live setting is 400, naming it.',
  },
  {
    name: 'getApplicationHealth',
    summary: 'Health of one application',
    http: { method: 'GET', path: '/health/applications/:name' },
    roles: ADMIN,
    response: applicationHealth,
    timeoutMs: TIMEOUTS_MS.short,
  },
  {
    name: 'getApplicationsHealth',
    summary: 'Health of all applications',
    http: { method: 'GET', path: '/health/applications' },
    roles: ADMIN,
    query: listQuery,
    response: resultsOf(applicationHealth),
    timeoutMs: TIMEOUTS_MS.short,
    notes: listNotes('id, name, state, service, version, type', 'id, name, state, service'),
  },
  // integrations
  {
    name: 'createIntegration',
    summary: 'Create an integration',
    http: { method: 'POST', path: '/integrations' },
    roles: ADMIN,
    body: newIntegrationBody,
    response: embed(integrationRecordSchema),
    notes:
      "An instance of a model: server defaults to the model's first server; secrets are sealed and answered as ********. " +
      "Also as ipctl sends it (its Integration struct): model empty and the model in properties.type, properties.id the name, the settings (if any) in properties.properties, and the record's own members (isEncrypted, loggerProps, virtual, profiling, systemProps, eventDeduplication, null or not) taken and left to the platform. " +
      '400 VALIDATION_FAILED naming body.properties.model when no model is given either way, body.properties.properties.id when it is not the name.',
  },
  {
    name: 'deleteIntegration',
    summary: 'Delete an integration',
    http: { method: 'DELETE', path: '/integrations/:name' },
    roles: ADMIN,
    response: acknowledgement(),
  },
  {
    name: 'getIntegration',
    summary: 'Get an integration',
    http: { method: 'GET', path: '/integrations/:name' },
    roles: ADMIN,
    response: embed(integrationRecordSchema),
  },
  {
    name: 'getIntegrations',
    summary: 'All integrations',
    http: { method: 'GET', path: '/integrations' },
    roles: ADMIN,
    query: queryOptionsSchema,
    response: integrationListSchema,
    notes:
      'queryOptions arrive as flat query members, the operators as text with their *Field member (equals=snow&equalsField=name); filter fields: name, model, type; ' +
      'sort: name, model, created, lastUpdated. Any other member, filter field or sort field is refused with 400 VALIDATION_FAILED naming it.',
  },
  {
    name: 'getIntegrationSchema',
    summary: 'Integration schema',
    http: { method: 'GET', path: '/schema/integrations/:name' },
    roles: ADMIN,
    response: record('JSON Schema of the integration properties'),
    notes: ":name is an integration name; the schema of its properties, with the model's servers as examples.",
  },
  {
    name: 'updateIntegration',
    summary: 'Update an integration',
    http: { method: 'PUT', path: '/integrations/:name' },
    roles: ADMIN,
    body: integrationBody([]),
    response: embed(integrationRecordSchema),
    notes: 'Members given replace the stored ones (the name stays); secrets sent as ******** keep their stored value.',
  },
  {
    name: 'updateIntegrationProperties',
    summary: 'Update properties of an integration',
    http: { method: 'PUT', path: '/integrations/:name/properties' },
    roles: ADMIN,
    body: integrationBody([]),
    response: embed(integrationRecordSchema),
    notes: 'As PUT /integrations/:name.',
  },
  // integration models
  {
    name: 'createIntegrationModel',
    summary: 'Create an integration model',
    http: { method: 'POST', path: '/integration-models' },
    roles: ADMIN,
    body: modelBody(true),
    response: createdResultSchema('nap:schemas/integration-model-created', integrationModel),
    bodyLimit: 'document',
    timeoutMs: TIMEOUTS_MS.lifecycle,
    notes:
      'Answered 200 { status: Created, message, data: the model } (ipctl reads data.versionId). ' +
      'Validated with an OpenAPI parser (2.0 converted to 3.x first); 400 INTEGRATION_MODEL_INVALID lists the findings { path, message } in details.',
  },
  {
    name: 'deleteIntegrationModel',
    summary: 'Delete an integration model',
    http: { method: 'DELETE', path: '/integration-models/:name' },
    roles: ADMIN,
    response: acknowledgement(),
    notes: '409 INTEGRATION_MODEL_IN_USE while an integration uses it.',
  },
  {
    name: 'exportIntegrationModel',
    summary: 'Export the open API spec of a model',
    http: { method: 'GET', path: '/integration-models/:name/export' },
    roles: ADMIN,
    response: record('the OpenAPI document as imported'),
  },
  {
    name: 'getIntegrationModel',
    summary: 'Get a model',
    http: { method: 'GET', path: '/integration-models/:name' },
    roles: ADMIN,
    response: integrationModel,
  },
  {
    name: 'getIntegrationModels',
    summary: 'All models',
    http: { method: 'GET', path: '/integration-models' },
    roles: ADMIN,
    query: listQuery,
    response: obj({ integrationModels: arr(integrationModel), total: int({ minimum: 0 }) }, ['integrationModels', 'total']),
    notes:
      '{ integrationModels, total }, as the platform answers it and ipctl reads it; each model carries model (its versionId, the name the other routes take). ' +
      listNotes('versionId, title, version, app', 'versionId, title, version, created, lastUpdated'),
  },
  {
    name: 'updateIntegrationModel',
    summary: 'Update a model',
    http: { method: 'PUT', path: '/integration-models' },
    roles: ADMIN,
    body: modelBody(false),
    response: integrationModel,
    bodyLimit: 'document',
    timeoutMs: TIMEOUTS_MS.lifecycle,
    notes: 'Replaces the document of the existing versionId; 409 INTEGRATION_MODEL_IN_USE while an integration uses it.',
  },
  {
    name: 'validateIntegrationModel',
    summary: 'Validate a model',
    http: { method: 'PUT', path: '/integration-models/validation' },
    roles: ADMIN,
    body: modelBody(true),
    response: embed(modelValidationSchema),
    bodyLimit: 'document',
    timeoutMs: TIMEOUTS_MS.lifecycle,
    notes: 'The check of POST /integration-models without storing anything.',
  },
  // external links
  {
    name: 'createLink',
    summary: 'Create a link',
    http: { method: 'POST', path: '/external-links' },
    roles: ADMIN,
    body: embed(linkInputSchema),
    response: link,
    notes: 'Body { name, address, description }; address must be an http(s) URL; names are unique (409 LINK_ALREADY_EXISTS).',
  },
  {
    name: 'deleteLink',
    summary: 'Delete a link',
    http: { method: 'DELETE', path: '/external-links/:linkId' },
    roles: ADMIN,
    response: acknowledgement(),
  },
  { name: 'getLink', summary: 'Get a link', http: { method: 'GET', path: '/external-links/:linkId' }, roles: ADMIN, response: link },
  {
    name: 'getLinks',
    summary: 'All links',
    http: { method: 'GET', path: '/external-links' },
    roles: ADMIN,
    query: listQuery,
    response: resultsOf(link),
    notes: `Sorted by name. ${listNotes('name, address, description', 'name, address')}`,
  },
  {
    name: 'updateLink',
    summary: 'Update a link',
    http: { method: 'PATCH', path: '/external-links/:linkId' },
    roles: ADMIN,
    body: embed(linkPatchSchema),
    response: link,
    notes: 'Members given replace the stored ones.',
  },
  // profiles
  {
    name: 'createProfile',
    summary: 'Create a profile',
    http: { method: 'POST', path: '/profiles' },
    roles: ADMIN,
    body: profileBody(['id']),
    response: profileRecord,
    notes: delegated(
      'Body { properties: <profile> } with at least id; the server fills every member left out with its default. Created inactive.',
    ),
  },
  {
    name: 'deleteProfile',
    summary: 'Delete a profile',
    http: { method: 'DELETE', path: '/profiles/:id' },
    roles: ADMIN,
    response: acknowledgement(),
    notes: delegated('409 PROFILE_ACTIVE for the active profile.'),
  },
  {
    name: 'exportProfile',
    summary: 'Export a profile',
    http: { method: 'GET', path: '/profiles/:id/export' },
    roles: ADMIN,
    response: embed(profileSchema),
    notes: 'The profile document; repository tokens are answered as ******** and must be filled in before an import.',
  },
  { name: 'getProfile', summary: 'Get a profile', http: { method: 'GET', path: '/profiles/:id' }, roles: ADMIN, response: profileRecord },
  {
    name: 'getProfiles',
    summary: 'All profiles',
    http: { method: 'GET', path: '/profiles' },
    roles: ADMIN,
    query: listQuery,
    response: resultsOf(profileRecord),
    notes: `Sorted by id. ${listNotes('id, description', 'id, created, lastUpdated')}`,
  },
  {
    name: 'getProfileSchema',
    summary: 'Profile schema',
    http: { method: 'GET', path: '/schema/profiles' },
    roles: ADMIN,
    response: record('the JSON Schema a profile is validated with'),
  },
  {
    name: 'importProfile',
    summary: 'Import a profile',
    http: { method: 'POST', path: '/profiles/import' },
    roles: ADMIN,
    body: closed(
      {
        profile: withPrintableNames(embed(profileSchema), ['id']),
        properties: withPrintableNames(
          closed(
            {
              ...profileSchema.properties,
              launchDelay: num({
                minimum: 0,
                description: "ipctl's profile struct sends it: above 0: kept as systemProps.launchDelay when that has none",
              }),
              launchTimeout: num({
                minimum: 0,
                description: "ipctl's profile struct sends it: above 0: kept as systemProps.launchTimeout when that has none",
              }),
            },
            ['id'],
          ),
          ['id'],
        ),
      },
      [],
      { minProperties: 1, maxProperties: 1 },
    ),
    response: profileRecord,
    notes: delegated(
      'Body { profile: <an exported profile> }, or { properties: <the profile> } as ipctl sends it (the members of its profile struct: launchDelay and launchTimeout at the top level, uiProps and applicationProps with empty strings); one of them, not both. ' +
        'Defaults fill what it lacks; created inactive. A token still ******** is refused.',
    ),
  },
  {
    name: 'switchActiveProfile',
    summary: 'Switch the active profile',
    http: { method: 'PUT', path: '/profiles/:id/active' },
    roles: ADMIN,
    response: profileChange,
    timeoutMs: TIMEOUTS_MS.lifecycle,
    notes: delegated(
      'One atomic switch: exactly one profile is active. Live settings apply at once on every replica; the answer lists them (applied) and those that take effect on restart (restartRequired).',
    ),
  },
  {
    name: 'updateProfile',
    summary: 'Update a profile',
    http: { method: 'PUT', path: '/profiles/:id' },
    roles: ADMIN,
    body: profileBody([]),
    response: profileChange,
    timeoutMs: TIMEOUTS_MS.lifecycle,
    notes: delegated(
      'Replaces the profile (its id stays; defaults fill what it lacks). For the active profile, live settings apply at once and the answer says which.',
    ),
  },
  // prebuilts
  {
    name: 'exportPrebuilt',
    summary: 'Export a prebuilt',
    http: { method: 'GET', path: '/prebuilts/:id/export' },
    roles: ADMIN,
    response: prebuiltPackage,
    timeoutMs: TIMEOUTS_MS.long,
    notes: 'The package rebuilt from its artifacts as they are now, read from their owning services; the manifest lists them.',
  },
  {
    name: 'getPrebuilt',
    summary: 'Get a prebuilt',
    http: { method: 'GET', path: '/prebuilts/:id' },
    roles: ADMIN,
    response: prebuiltRecord,
  },
  {
    name: 'getPrebuilts',
    summary: 'All prebuilts',
    http: { method: 'GET', path: '/prebuilts' },
    roles: ADMIN,
    query: listQuery,
    response: resultsOf(prebuiltRecord),
    notes: `Installations under way left out; sorted by metadata.name. ${listNotes('metadata.name, metadata.version, metadata.description', 'metadata.name, metadata.version, installed')}`,
  },
  {
    name: 'importPrebuilt',
    summary: 'Import a prebuilt',
    http: { method: 'POST', path: '/prebuilts/import' },
    roles: ADMIN,
    body: newPrebuiltBody,
    response: createdResultSchema('nap:schemas/prebuilt-installed', prebuiltRecord),
    timeoutMs: TIMEOUTS_MS.long,
    notes:
      'Answered 200 { status: Created, message, data: the prebuilt record } (ipctl reads data.name and data._id). ' +
      'Installs each bundle through the import of the service that owns it (studio: workflow, transformation, template, json-forms, forms; mop: mop-template, mop-analytic-template; workflow: automation with its triggers), all or nothing: ' +
      'on any failure the artifacts created are deleted (and those overwritten put back) and nothing is recorded. Bundle types NAP does not have are refused by name (422 PREBUILT_BUNDLE_UNSUPPORTED); ' +
      'an artifact name that exists is 409 PREBUILT_ARTIFACT_EXISTS unless options.overwrite (never one of another prebuilt); an artifact its service refuses names the bundle. ' +
      'Applications, adapters or prebuilts named in metadata.IAPDependencies that the platform lacks (or has outside the range) are 409 PREBUILT_DEPENDENCY_MISSING naming each, unless options.ignoreDependencies; the record then lists them in missingDependencies. See docs/prebuilts.md.',
  },
  {
    name: 'removePrebuilt',
    summary: 'Remove a prebuilt',
    http: { method: 'DELETE', path: '/prebuilts/:id' },
    roles: ADMIN,
    response: acknowledgement(),
    timeoutMs: TIMEOUTS_MS.long,
    notes: 'Deletes exactly the artifacts the prebuilt created, through their owning services, then the record.',
  },
  {
    name: 'updatePrebuilt',
    summary: 'Update a prebuilt',
    http: { method: 'PUT', path: '/prebuilts/:id' },
    roles: ADMIN,
    body: obj(
      {
        // its name is compared with the installed prebuilt's; its new version prints in lists
        prebuilt: withPrintableNames(prebuiltPackage, ['metadata.version']),
        options: embed(prebuiltImportOptionsSchema),
      },
      ['prebuilt'],
    ),
    response: prebuiltRecord,
    timeoutMs: TIMEOUTS_MS.long,
    notes:
      'Upgrades to a newer version of the same package, all or nothing: the old artifacts give way to the new ones and come back if the upgrade fails. 409 PREBUILT_VERSION_NOT_NEWER.',
  },
  {
    name: 'validatePrebuilt',
    summary: 'Validate the data structure of a prebuilt',
    http: { method: 'PUT', path: '/prebuilts/import/validation' },
    roles: ADMIN,
    body: newPrebuiltBody,
    response: embed(prebuiltValidationSchema),
    timeoutMs: TIMEOUTS_MS.long,
    notes:
      'What the import would do, without installing: errors (unknown bundle types, name clashes, a package of that name installed, what metadata.IAPDependencies names and the platform lacks) and warnings (dependencies of its workflows found neither in the package nor on the platform; the IAPDependencies it lacks with options.ignoreDependencies).',
  },
  // prebuilt repository configurations
  {
    name: 'createRepositoryConfig',
    summary: 'Create a repository configuration',
    http: { method: 'POST', path: '/prebuilts-repository/configs' },
    auditKind: 'repository-config',
    roles: ADMIN,
    body: closed(
      { config: closed({ name: printableName('unique repository name'), ...repositoryConfigSchema.properties }, ['name', 'type', 'path']) },
      ['config'],
    ),
    response: repositoryConfigView,
    notes:
      'Stored in the active profile (prebuiltProps.repoConfigs). Types: local (a directory of packages on the host) and gitlab (a group of a GitLab server; its token sealed, answered as ********).',
  },
  {
    name: 'deleteRepositoryConfig',
    summary: 'Delete a repository configuration',
    http: { method: 'DELETE', path: '/prebuilts-repository/configs/:name' },
    auditKind: 'repository-config',
    roles: ADMIN,
    response: acknowledgement(),
  },
  {
    name: 'getRepositoryConfigs',
    summary: 'All repository configurations',
    http: { method: 'GET', path: '/prebuilts-repository/configs' },
    auditKind: 'repository-config',
    roles: ADMIN,
    query: listQuery,
    response: resultsOf(repositoryConfigView),
    notes: `Those of the active profile, sorted by name. ${listNotes('name, type, path, hostname, description', 'name, type')}`,
  },
  {
    name: 'updateRepositoryConfig',
    summary: 'Update a repository configuration',
    http: { method: 'PATCH', path: '/prebuilts-repository/configs/:name' },
    auditKind: 'repository-config',
    roles: ADMIN,
    body: closed(
      {
        config: closed(repositoryConfigSchema.properties, [], {
          minProperties: 1,
          description: 'members to change; a token sent as ******** keeps the stored one',
        }),
      },
      ['config'],
    ),
    response: repositoryConfigView,
  },
  {
    name: 'getRepositoryPrebuilts',
    summary: 'All prebuilts of a repository',
    http: { method: 'GET', path: '/prebuilts-repository' },
    roles: ADMIN,
    query: closed({
      ...listQuerySchema.properties,
      config: str({ description: 'repository configuration name; every enabled one when absent' }),
      name: str({ description: 'one package by metadata.name: answered with its bundles, ready for POST /prebuilts/import' }),
    }),
    response: resultsOf(repositoryPrebuilt),
    timeoutMs: TIMEOUTS_MS.device,
    notes:
      'The packages the repositories offer: metadata, manifest and readme (bundles only with ?name=, local repositories), the repository, and the installed version if any. ' +
      'Query: config and name, and the shared list options: ' +
      listNotes('metadata.name, metadata.version, metadata.description, repository', 'metadata.name, repository') +
      ' 502 REPOSITORY_UNREACHABLE names a repository that cannot be read.',
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
    notes:
      "Every process's registry, aggregated. Besides request and process metrics: nap_active_sessions, nap_unique_sessions, nap_total_api_calls, nap_active_jobs (the original platform's gauges), " +
      'nap_jobs{state}, nap_job_duration_seconds and nap_task_duration_seconds{workflow,state}, nap_device_sessions_open, nap_device_commands_total{protocol,outcome}, nap_mop_runs_total{kind,result}, nap_adapters{state}, nap_integrations, nap_store_disk_free_bytes and nap_store_disk_min_free_bytes (the embedded store), nap_logins_total{via,outcome}, nap_queue_oldest_entry_age_seconds{queue} and nap_queue_fill_ratio{queue} (NATS), nap_retention_next_run_timestamp_seconds{kind}, nap_event_stream_clients{stream} and nap_event_stream_clients_dropped_total{stream}, nap_tls_certificate_expiry_timestamp_seconds and nap_tls_certificate_reloads_total{outcome} (a gateway serving TLS). See docs/operator-tools.md.',
  },
  {
    name: 'getServerHealth',
    summary: 'Health of the server',
    http: { method: 'GET', path: '/health/server' },
    roles: ROLE_SETS.any,
    response: serverHealth,
    timeoutMs: TIMEOUTS_MS.short,
    notes:
      "Any authenticated caller: the platform's existing clients (the GitHub Actions, the MCP server) read release here to choose the routes they call, with the account they run automations with.",
  },
  {
    name: 'getHealthStatus',
    summary: 'Overall status: the bus, the store and the services',
    http: { method: 'GET', path: '/health/status' },
    roles: ADMIN,
    response: obj(
      {
        status: oneOf(['running', 'degraded'], {
          description: 'running when the bus is connected, the store answers with room to write, and every service answers',
        }),
        timestamp: num({ description: 'epoch milliseconds' }),
        services: arr(
          obj(
            {
              service: str(),
              status: str({
                description: 'the store: running, low on space (under 4 times the free space it keeps), full (writes refused) or stopped',
              }),
              disk: obj(
                { freeBytes: num(), totalBytes: num(), minFreeBytes: num({ description: 'NAP_DATA_MIN_FREE_MB' }) },
                ['freeBytes', 'totalBytes', 'minFreeBytes'],
                { description: 'the disk under the embedded store' },
              ),
            },
            ['service', 'status'],
          ),
          { description: 'bus and store' },
        ),
        apps: str({ description: 'running when every application answers, degraded otherwise' }),
        applications: arr(obj({ name: str(), state: str() }, ['name', 'state'])),
      },
      ['status', 'timestamp', 'services', 'apps', 'applications'],
    ),
    timeoutMs: TIMEOUTS_MS.short,
    addition: true,
  },
  {
    name: 'getSystemHealth',
    summary: 'Health of the system',
    http: { method: 'GET', path: '/health/system' },
    roles: ADMIN,
    response: systemHealth,
    timeoutMs: TIMEOUTS_MS.short,
  },
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
      'and set as an HttpOnly token cookie. A token sent back wrapped in double quotes is accepted too. ' +
      'After repeated failures for the username or from the address: 429 LOGIN_THROTTLED with Retry-After, the password not checked (docs/security.md).',
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
    notes:
      'Form-encoded body only; a JSON body is 415. Throttled like POST /login: 429 LOGIN_THROTTLED with Retry-After after repeated failures.',
  },
  // browser sign-in (additions): OIDC and SAML through the identity provider's pages
  {
    name: 'getSsoMethods',
    summary: 'The browser sign-in methods people may choose',
    http: { method: 'GET', path: '/sso/methods' },
    roles: [],
    auth: 'public',
    response: ssoMethodsSchema,
    timeoutMs: TIMEOUTS_MS.short,
    addition: true,
    notes:
      'The enabled OIDC and SAML providers of the active profile (name, label, type): the console shows a "Sign in with <label>" button for each.',
  },
  {
    name: 'ssoLogin',
    summary: 'Begin a browser sign-in: redirect to the identity provider',
    http: { method: 'GET', path: '/sso/login' },
    roles: [],
    auth: 'public',
    query: ssoLoginQuerySchema,
    response: ssoRedirectSchema,
    status: 302,
    timeoutMs: 10_000,
    addition: true,
    notes:
      'Answers 302 Found to the identity provider (OIDC authorization request with PKCE, state and nonce; SAML AuthnRequest with RelayState) and sets the short-lived HttpOnly nap_sso cookie ' +
      'that binds the sign-in to this browser. The sign-in under way is kept by the admin service for 10 minutes and taken once. A returnTo that is not a path of this platform is 400.',
  },
  {
    name: 'ssoCallback',
    summary: 'Finish an OpenID Connect sign-in (the redirect URI)',
    http: { method: 'GET', path: '/sso/callback' },
    roles: [],
    auth: 'public',
    query: ssoCallbackQuerySchema,
    response: ssoSignedInSchema,
    status: 303,
    timeoutMs: 15_000,
    addition: true,
    notes:
      'The redirect URI <NAP_PUBLIC_URL>/sso/callback. The code is exchanged with its PKCE verifier and the signed ID token checked (signature, issuer, audience, expiry, nonce); then the session ' +
      'begins as with /login: 303 See Other to returnTo with the token cookie set. A state this browser did not begin (no nap_sso cookie of that value), taken already, or expired, and every failed check: 401 UNAUTHENTICATED naming it.',
  },
  {
    name: 'samlAcs',
    summary: 'Finish a SAML sign-in (the assertion consumer service)',
    http: { method: 'POST', path: '/sso/saml/acs' },
    roles: [],
    auth: 'public',
    accepts: ['application/x-www-form-urlencoded'],
    body: samlAcsBodySchema,
    response: ssoSignedInSchema,
    status: 303,
    timeoutMs: 15_000,
    addition: true,
    notes:
      'The assertion consumer <NAP_PUBLIC_URL>/sso/saml/acs (HTTP-POST binding). A signed response or assertion is required; audience, recipient, NotOnOrAfter and InResponseTo are checked, ' +
      'and an assertion seen before is refused. Then 303 See Other to returnTo with the token cookie set, as /sso/callback.',
  },
  {
    name: 'getSamlMetadata',
    summary: "NAP's SAML service provider metadata",
    http: { method: 'GET', path: '/sso/saml/metadata' },
    roles: [],
    auth: 'public',
    query: obj({ provider: str({ minLength: 1, description: 'the SAML provider; may be left out when only one is enabled' }) }),
    response: str({ description: 'the SP metadata (EntityDescriptor) to import into the identity provider' }),
    contentType: 'application/samlmetadata+xml',
    timeoutMs: TIMEOUTS_MS.short,
    addition: true,
  },
  {
    name: 'whoami',
    summary: 'The calling account',
    http: { method: 'GET', path: '/whoami' },
    roles: ROLE_SETS.any,
    auth: 'caller',
    response: whoamiAnswer,
    timeoutMs: TIMEOUTS_MS.short,
    addition: true,
    notes:
      'The account as GET /authorization/accounts/:accountId answers it, with id beside _id and its groups as { id, name, provenance } (as Itential answers /whoami and ipctl reads it); provenance of a group made here is NAP.',
  },
  {
    name: 'getUserSettings',
    summary: "The calling account as the platform's user settings",
    http: { method: 'GET', path: '/user/settings' },
    roles: ROLE_SETS.any,
    auth: 'caller',
    response: obj(
      {
        _id: str(),
        username: str(),
        firstname: str(),
        provenance: str({ description: 'the sign-in method of the account, NAP for an account whose password NAP keeps' }),
        inactive: bool(),
        lastLogin: str({ format: 'date-time', description: 'absent when the account never signed in' }),
        memberOf: arr(
          obj({ groupId: str(), aaaManaged: bool({ description: 'true for a group a sign-in method brought in' }) }, [
            'groupId',
            'aaaManaged',
          ]),
        ),
        assignedRoles: arr(obj({ roleId: str() }, ['roleId']), { description: 'the custom roles its groups give' }),
      },
      ['_id', 'username', 'provenance', 'inactive', 'memberOf', 'assignedRoles'],
    ),
    timeoutMs: TIMEOUTS_MS.short,
    addition: true,
    notes: 'What ipctl reads to know the user it acts as (project copy and import).',
  },
  {
    name: 'changeMyPassword',
    summary: "Change the calling account's own password",
    http: { method: 'PUT', path: '/whoami/password' },
    auditKind: 'account',
    roles: ROLE_SETS.any,
    auth: 'caller',
    body: closed(
      {
        currentPassword: str({ minLength: 1, description: 'the password as it is now; never logged' }),
        newPassword: str({
          minLength: 1,
          description:
            "the new password, at least the active profile's authenticationProps.passwordRules.minLength characters (12 by default, never fewer than 8)",
        }),
      },
      ['currentPassword', 'newPassword'],
    ),
    response: acknowledgement(),
    timeoutMs: 10_000,
    addition: true,
    notes:
      'A wrong currentPassword is refused with 403 CURRENT_PASSWORD_WRONG and counts as a failed login of the account (429 LOGIN_THROTTLED once throttled). ' +
      "On success every other session of the account ends; the calling one goes on. A new password shorter than the rules' minLength: 400 naming body.newPassword.",
  },
  {
    name: 'mySession',
    summary: 'The session of the calling credentials',
    http: { method: 'GET', path: '/mySession' },
    roles: ROLE_SETS.any,
    auth: 'caller',
    response: sessionSchema,
    timeoutMs: TIMEOUTS_MS.short,
    addition: true,
  },
  {
    name: 'logout',
    summary: 'End the session of the calling token',
    http: { method: 'GET', path: '/logout' },
    roles: ROLE_SETS.any,
    auth: 'caller',
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
    notes:
      'Bus-only, called by the gateway for Basic credentials (nap-client-address: the address throttled). Wrong credentials: 401 UNAUTHENTICATED, without saying which part was wrong; ' +
      'repeated failures: 429 LOGIN_THROTTLED.',
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
    notes:
      'Bus-only, for orch-proxy and other services: the answer is whatever the system answered (any status); no secret crosses the bus. 409 ADAPTER_NOT_RUNNING unless the adapter is RUNNING.',
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
  // the audit trail (additions)
  {
    name: 'getAudit',
    summary: 'Records of the audit trail, newest first',
    http: { method: 'GET', path: '/audit' },
    roles: ROLE_SETS.audit,
    query: auditQuerySchema,
    response: auditPageSchema,
    addition: true,
    notes:
      'Every change (any route, any credentials), login, logout, failed login and refusal (401, 403, 429), and the platform actions (schedules, event triggers, retention). ' +
      'The shared list options (sort by seq, timestamp, operation; equals/contains/startsWith on operation, method, route, actor.username, target.kind, target.id, target.name, requestId) ' +
      'plus actor (a username or a platform actor), operation, targetId, outcome (403, FORBIDDEN, success or failure), since and until (ISO 8601). ' +
      'Any other member, filter field or sort field is refused with 400 VALIDATION_FAILED naming it. See docs/security.md.',
  },
  {
    name: 'getAuditRecord',
    summary: 'One record of the audit trail',
    http: { method: 'GET', path: '/audit/:seq' },
    roles: ROLE_SETS.audit,
    params: {
      seq: str({
        pattern: describedPattern('^[1-9][0-9]{0,14}$', 'a whole number from 1, such as 42'),
        description: "the record's seq (its position in the chain, from 1)",
      }),
    },
    response: embed(auditRecordSchema),
    addition: true,
    notes:
      'The record as GET /audit lists it, with its hash and the hash of the record before it. 404 AUDIT_RECORD_NOT_FOUND for a seq not recorded yet or removed by retention.',
  },
  {
    name: 'verifyAudit',
    summary: 'Check the hash chain of the audit trail',
    http: { method: 'GET', path: '/audit/verify' },
    roles: ROLE_SETS.audit,
    response: auditVerificationSchema,
    timeoutMs: TIMEOUTS_MS.long,
    addition: true,
    notes:
      "Recomputes every kept record's hash (SHA-256 over its RFC 8785 canonical JSON) and checks each links to the one before and that no seq is missing; firstBroken is the seq of the first record that does not hold.",
  },
  {
    name: 'exportAudit',
    summary: 'Export the audit trail as newline-delimited JSON',
    http: { method: 'GET', path: '/audit/export' },
    roles: ROLE_SETS.audit,
    query: auditExportQuerySchema,
    response: Type.Unsafe<string>({ type: 'string', description: 'one audit record (JSON) a line, oldest first' }),
    contentType: 'application/x-ndjson',
    timeoutMs: TIMEOUTS_MS.long,
    addition: true,
    notes:
      'Over HTTP the gateway streams every record from since to until, asking the admin service a page (limit, afterSeq) at a time; on the bus one page is answered. ' +
      'Resume an interrupted export with afterSeq = the seq of the last line received.',
  },
]);
