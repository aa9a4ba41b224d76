import { TEST_ADMIN, startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { eventually, task, workflowDocument } from '@nap/testing';
import { expectStatus, ipctlClient, ipctlToken } from '../support/ipctl';
import type { Ipctl, Loose } from '../support/ipctl';

/**
 * The administration calls of Itential's command line ipctl (github.com/itential/ipctl,
 * pkg/services: accounts, groups, roles, methods, profiles, current_user, user_settings,
 * integrations, integration_models, adapters, adapter_models, applications, prebuilts, health),
 * written as ipctl makes them: its headers, the body it builds (what a Go struct marshals to: zero
 * values for members without omitempty, `null` for a nil map or slice), the exact status it expects
 * (`expectedStatusCode`, else what its `Do` defaults to: 200, 201 for a POST that sets none) and its
 * GetAll loops (`limit=100&skip=n` until the items read reach `total`). Each answer is decoded as Go's
 * encoding/json decodes it into ipctl's structs ({@link decodeErrors}): a member of another JSON
 * type than the struct field's is an error that fails the whole command, so every member ipctl
 * reads is checked for its type, and the members its commands use for their value.
 */

let platform: TestPlatform;
let bearer: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  bearer = await ipctlToken(platform.url);
}, 60_000);

afterAll(async () => {
  await platform?.stop();
});

/** One request as ipctl's client sends it, with an OAuth profile's Bearer token (or `options.token`). */
const ipctl: Ipctl = (method, path, options) => ipctlClient(platform.url, () => bearer)(method, path, options);

// ---------------------------------------------------------------------------------------------
// Go's encoding/json, as far as ipctl's structs need it

/** A Go type: a scalar, a slice, a map of values of one type, or a struct (its fields by JSON name; `name?` for omitempty). */
type GoType =
  | 'string'
  | 'bool'
  | 'int'
  | 'int32'
  | 'int64'
  | 'float'
  | 'any'
  | 'map'
  | { slice: GoType }
  | { mapOf: GoType }
  | { struct: Record<string, GoType> };

const slice = (of: GoType): GoType => ({ slice: of });
const mapOf = (of: GoType): GoType => ({ mapOf: of });
const struct = (fields: Record<string, GoType>): GoType => ({ struct: fields });

const INT_RANGE = { int: 2 ** 63, int32: 2 ** 31, int64: 2 ** 63 } as const;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The JSON member a struct field reads: its exact name, else one that differs in letter case only (as encoding/json matches). */
function memberOf(value: Record<string, unknown>, field: string): string | undefined {
  if (field in value) return field;
  return Object.keys(value).find((k) => k.toLowerCase() === field.toLowerCase());
}

/**
 * What encoding/json says decoding `value` into `type`: an empty list when it decodes. JSON null
 * decodes into anything; members a struct has no field for are ignored.
 */
function decodeErrors(value: unknown, type: GoType, at = '$'): string[] {
  if (value === null || value === undefined) return [];
  const wrong = (want: string) => [`${at}: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value} into ${want}`];
  if (typeof type === 'string') {
    switch (type) {
      case 'any':
        return [];
      case 'string':
        return typeof value === 'string' ? [] : wrong('string');
      case 'bool':
        return typeof value === 'boolean' ? [] : wrong('bool');
      case 'float':
        return typeof value === 'number' ? [] : wrong('float64');
      case 'map':
        return isObject(value) ? [] : wrong('map[string]interface{}');
      default:
        return typeof value === 'number' && Number.isInteger(value) && Math.abs(value) < INT_RANGE[type] ? [] : wrong(type);
    }
  }
  if ('slice' in type) return Array.isArray(value) ? value.flatMap((v, i) => decodeErrors(v, type.slice, `${at}[${i}]`)) : wrong('slice');
  if (!isObject(value)) return wrong('mapOf' in type ? 'map' : 'struct');
  if ('mapOf' in type) return Object.entries(value).flatMap(([k, v]) => decodeErrors(v, type.mapOf, `${at}.${k}`));
  return Object.entries(type.struct).flatMap(([field, fieldType]) => {
    const member = memberOf(value, field.replace(/\?$/, ''));
    return member === undefined ? [] : decodeErrors(value[member], fieldType, `${at}.${member}`);
  });
}

/** Expects `value` to decode into `type` as Go decodes it; the value. */
function decoded<T = Loose>(value: unknown, type: GoType): T {
  expect(decodeErrors(value, type)).toEqual([]);
  return value as T;
}

function zero(type: GoType): unknown {
  if (type === 'string') return '';
  if (type === 'bool') return false;
  if (type === 'int' || type === 'int32' || type === 'int64' || type === 'float') return 0;
  if (typeof type === 'object' && 'struct' in type) return marshal({}, type);
  return null; // nil slice, map, interface
}

function isEmpty(value: unknown): boolean {
  return (
    value === null ||
    value === '' ||
    value === 0 ||
    value === false ||
    (Array.isArray(value) && value.length === 0) ||
    (isObject(value) && Object.keys(value).length === 0)
  );
}

/**
 * What ipctl sends back of an answer it read into `type` (an export it imports, a record it
 * updates): the struct's fields only, a field the answer lacked as its zero value (`null` for a
 * slice or map), an omitempty field left out when empty.
 */
function marshal(value: unknown, type: GoType): unknown {
  if (typeof type === 'string') return value ?? zero(type);
  if ('slice' in type) return Array.isArray(value) ? value.map((v) => marshal(v, type.slice)) : null;
  if ('mapOf' in type) return isObject(value) ? value : null;
  const source = isObject(value) ? value : {};
  const out: Record<string, unknown> = {};
  for (const [field, fieldType] of Object.entries(type.struct)) {
    const omitEmpty = field.endsWith('?');
    const name = field.replace(/\?$/, '');
    const member = memberOf(source, name);
    const v = member === undefined || source[member] === null ? zero(fieldType) : marshal(source[member], fieldType);
    if (omitEmpty && isEmpty(v)) continue;
    out[name] = v;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// ipctl's structs (pkg/services), the members it reads

const Account = struct({
  _id: 'string',
  email: 'string',
  firstname: 'string',
  inactive: 'bool',
  loggedIn: 'bool',
  provenance: 'string',
  username: 'string',
});
const Group = struct({
  '_id?': 'string',
  name: 'string',
  description: 'string',
  provenance: 'string',
  '_meta?': 'map',
  assignedRoles: slice('map'),
  inactive: 'bool',
  'inheritedGroups?': slice(struct({ roleId: 'string' })),
  'inheritedRoles?': slice(struct({ roleId: 'string' })),
  memberOf: slice(struct({ aaaManaged: 'bool', groupId: 'string' })),
});
const RoleMethod = struct({ name: 'string', provenance: 'string' });
const Role = struct({
  '_id?': 'string',
  provenance: 'string',
  name: 'string',
  description: 'string',
  allowedMethods: slice(RoleMethod),
  allowedViews: slice(struct({ provenance: 'string', path: 'string' })),
});
const Method = struct({
  provenance: 'string',
  name: 'string',
  deprecated: 'bool',
  route: struct({ path: 'string', fullPath: 'string', verb: 'string' }),
});
const Profile = struct({
  id: 'string',
  description: 'string',
  launchDelay: 'int',
  launchTimeout: 'int',
  applicationProps: struct({ directory: 'string' }),
  uiProps: struct({
    description: 'string',
    layout: 'string',
    home: 'string',
    login: 'string',
    profile: 'string',
    user_config: 'string',
    group_config: 'string',
    new_user: 'string',
    edit_user: 'string',
    new_group: 'string',
    fav_icon: 'string',
    apple_touch_icon: 'string',
  }),
  'authenticationProps?': 'map',
  'expressProps?': 'map',
  'loggerProps?': 'map',
  'alarmProps?': slice('map'),
  'auditProps?': 'map',
  'pathProps?': 'map',
  'taskWorkerProps?': 'map',
  'redisProps?': 'map',
  'services?': slice('string'),
  'systemProps?': 'map',
  'integrationProps?': 'map',
  'prebuiltProps?': 'map',
  'retryStrategy?': 'map',
  'adapterStrategy?': 'map',
  'adapterProps?': 'map',
});
const ProfileRecord = struct({ metadata: struct({ activeSync: 'bool', isActive: 'bool' }), profile: Profile });
const CurrentUser = struct({
  id: 'string',
  username: 'string',
  firstname: 'string',
  groups: slice(struct({ id: 'string', name: 'string', provenance: 'string' })),
  methods: 'map',
  provenance: 'string',
  roles: slice('string'),
  routes: slice('string'),
});
const UserSettings = struct({
  _id: 'string',
  _meta: 'map',
  assignedRoles: slice(struct({ roleId: 'string' })),
  firstname: 'string',
  gitTokens: 'map',
  inactive: 'bool',
  lastLogin: 'string',
  memberOf: slice('any'),
  provenance: 'string',
  username: 'string',
});
const Integration = struct({
  name: 'string',
  type: 'string',
  model: 'string',
  properties: 'map',
  isEncrypted: 'bool',
  loggerProps: 'map',
  virtual: 'bool',
  profiling: 'bool',
  systemProps: 'map',
  eventDeduplication: 'map',
});
const IntegrationModel = struct({
  'model?': 'string',
  versionId: 'string',
  description: 'string',
  properties: struct({
    authentication: 'map',
    server: struct({ protocol: 'string', host: 'string', base_path: 'string' }),
    tls: struct({ enabled: 'bool', rejectUnauthroized: 'bool' }),
    version: 'string',
  }),
});
const Adapter = struct({
  name: 'string',
  type: 'string',
  model: 'string',
  properties: struct({ id: 'string', type: 'string', brokers: slice('string'), groups: slice('any'), properties: 'map' }),
  isEncrypted: 'bool',
  loggerProps: 'map',
  virtual: 'bool',
});
const AdapterRecord = struct({ metadata: struct({ activeSync: 'bool', isAlive: 'bool' }), data: Adapter, virtual: 'bool' });
const Application = struct({ name: 'string', type: 'string', model: 'string', properties: 'map', isEncrypted: 'bool', loggerProps: 'map' });
const ApplicationRecord = struct({ data: Application, metadata: struct({ activeSync: 'bool', IsActive: 'bool' }) });
const PrebuiltRepository = struct({ type: 'string', hostname: 'string', path: 'string' });
const Prebuilt = struct({
  _id: 'string',
  name: 'string',
  IAPDependencies: 'map',
  author: 'string',
  components: slice(struct({ id: 'string', name: 'string', type: 'string' })),
  description: 'string',
  installed: 'string',
  installedBy: 'string',
  keywords: slice('string'),
  license: 'string',
  manifest: struct({
    artifacts: slice(struct({ id: 'string', location: 'string', name: 'string', properties: 'map', type: 'string' })),
    bundleName: 'string',
    createdEpoch: 'string',
    fingerprint: 'string',
  }),
  readme: 'string',
  repository: PrebuiltRepository,
  version: 'string',
});
const PrebuiltPackage = struct({
  metadata: struct({
    name: 'string',
    version: 'string',
    description: 'string',
    license: 'string',
    repository: PrebuiltRepository,
    keywords: slice('string'),
    author: 'string',
    IAPDependencies: 'map',
    gitlabId: 'int',
  }),
  manifest: struct({
    bundleName: 'string',
    fingerprint: 'string',
    createdEpoch: 'string',
    artifacts: slice(struct({ id: 'string', name: 'string', type: 'string', location: 'string', properties: 'map' })),
  }),
  bundles: slice(struct({ type: 'string', data: 'map' })),
  readme: 'string',
});
const MemoryUsage = struct({ rss: 'int32', heapTotal: 'int32', heapUsed: 'int32', external: 'int32', arrayBuffers: 'int32' });
const CpuUsage = struct({ user: 'int64', system: 'int64' });
const ComponentHealth = struct({
  id: 'string',
  package_id: 'string',
  version: 'string',
  type: 'string',
  description: 'string',
  routePrefix: 'string',
  state: 'string',
  connection: struct({ state: 'string' }),
  uptime: 'any',
  memoryUsage: MemoryUsage,
  cpuUsage: CpuUsage,
  pid: 'any',
  logger: struct({ console: 'string', file: 'string', syslog: 'any' }),
  timestamp: 'int64',
  prevUptime: 'float',
});
/** What ipctl's `{ status, message, data }` answers decode into. */
const created = (data: GoType) => struct({ status: 'string', message: 'string', data });
const ack = struct({ status: 'string', message: 'string' });

/** ipctl's GetAll loop: pages of 100 until as many items were read as the answer's total says. */
async function getAll(path: string, item: GoType): Promise<Loose[]> {
  const read: Loose[] = [];
  for (let skip = 0; ; skip += 100) {
    const page = await ipctl('GET', path, { query: { limit: '100', skip: String(skip) } });
    expectStatus(page, 200);
    const body = decoded(page.body, struct({ results: slice(item), total: 'int' }));
    read.push(...(body.results as Loose[]));
    if (read.length === body.total) return read;
    expect(body.results.length).toBeGreaterThan(0); // a page that reads nothing loops for ever
  }
}

// ---------------------------------------------------------------------------------------------

describe('ipctl accounts (accounts.go)', () => {
  it('pages accounts, gets one by _id, deactivates and activates it with PATCH (200)', async () => {
    const made = await platform.http('POST', '/user-management/accounts', {
      token: bearer,
      body: { account: { username: 'ipctl-alice', password: 'ipctl-alice-password-1', firstname: 'Alice' } },
    });
    expectStatus(made, 200);
    const accounts = await getAll('/authorization/accounts', Account);
    // GetByName: an active account of that username first
    const alice = accounts.find((a) => a.username === 'ipctl-alice' && !a.inactive);
    expect(alice).toMatchObject({ _id: expect.any(String), firstname: 'Alice', inactive: false });
    const one = await ipctl('GET', `/authorization/accounts/${alice._id}`);
    expectStatus(one, 200);
    expect(decoded(one.body, Account)).toMatchObject({ _id: alice._id, username: 'ipctl-alice' });
    expect((await ipctl('PATCH', `/authorization/accounts/${alice._id}`, { body: { inactive: true } })).status).toBe(200);
    expect((await ipctl('GET', `/authorization/accounts/${alice._id}`)).body.inactive).toBe(true);
    expect((await ipctl('PATCH', `/authorization/accounts/${alice._id}`, { body: { inactive: false } })).status).toBe(200);
    expect((await ipctl('GET', `/authorization/accounts/${alice._id}`)).body.inactive).toBe(false);
  });
});

describe('ipctl groups (groups.go)', () => {
  it('creates a group with POST /authorization/groups (200, data), lists, gets and deletes it with DELETE /authorization/groups/:id', async () => {
    // NewGroup(name, desc), as Create sends it
    const body = {
      group: {
        name: 'ipctl-netops',
        description: 'network operators',
        provenance: 'Pronghorn',
        assignedRoles: [],
        inactive: false,
        memberOf: [],
      },
    };
    const res = await ipctl('POST', '/authorization/groups', { body });
    expectStatus(res, 200);
    const data = decoded(res.body, created(Group)).data;
    expect(data).toMatchObject({ _id: expect.any(String), name: 'ipctl-netops', description: 'network operators' });

    const list = await ipctl('GET', '/authorization/groups');
    expectStatus(list, 200);
    const groups = decoded(list.body, struct({ results: slice(Group), total: 'int' })).results as Loose[];
    const found = groups.find((g) => g.name === 'ipctl-netops' && !g.inactive);
    expect(found?._id).toBe(data._id);
    const one = await ipctl('GET', `/authorization/groups/${data._id}`);
    expectStatus(one, 200);
    expect(decoded(one.body, Group)).toMatchObject({ _id: data._id, name: 'ipctl-netops' });

    // a name taken is refused (ipctl says so), and what NAP groups cannot be is refused by name
    expect((await ipctl('POST', '/authorization/groups', { body })).status).toBe(409);
    const nested = await ipctl('POST', '/authorization/groups', {
      body: { group: { ...body.group, name: 'ipctl-nested', memberOf: [{ groupId: data._id, aaaManaged: false }] } },
    });
    expect(nested).toMatchObject({
      status: 400,
      body: { code: 'VALIDATION_FAILED', message: expect.stringContaining('body.group.memberOf') },
    });

    expect((await ipctl('DELETE', `/authorization/groups/${data._id}`)).status).toBe(200);
    expect((await ipctl('GET', `/authorization/groups/${data._id}`)).status).toBe(404);
  });
});

describe('ipctl roles (roles.go, methods.go)', () => {
  let ipctlGroupId: string;

  it('creates a role of methods it checked against GET /authorization/methods, lists, describes, exports, imports and deletes it', async () => {
    // create role: the methods are checked against GET /authorization/methods first (one GET, no paging)
    const methodsRes = await ipctl('GET', '/authorization/methods');
    expectStatus(methodsRes, 200);
    const methods = decoded(methodsRes.body, struct({ results: slice(Method), total: 'int' })).results as Loose[];
    expect(methods.length).toBe(methodsRes.body.total);
    const getJobs = methods.find((m) => m.name === 'getJobs' && m.provenance === 'OperationsManager');
    expect(getJobs).toMatchObject({ deprecated: false, route: { verb: 'GET', path: '/operations-manager/jobs' } });
    const allowedMethods = [
      { name: 'getJobs', provenance: 'OperationsManager' },
      { name: 'getAuthorizationGroups', provenance: 'AdminEssentials' },
    ];
    for (const m of allowedMethods) expect(methods.some((x) => x.name === m.name && x.provenance === m.provenance)).toBe(true);

    const create = await ipctl('POST', '/authorization/roles', {
      body: { role: { name: 'ipctl-viewer', provenance: 'Custom', description: '', allowedMethods, allowedViews: [] } },
    });
    expectStatus(create, 200);
    const role = decoded(create.body, created(Role)).data;
    expect(role).toMatchObject({ _id: expect.any(String), name: 'ipctl-viewer', provenance: 'Custom', allowedMethods });

    // get roles: every role, custom ones by provenance Custom; the built-in ones are listed too
    const roles = await getAll('/authorization/roles', Role);
    expect(roles.filter((r) => r.provenance === 'Custom').map((r) => r.name)).toContain('ipctl-viewer');
    expect(roles.filter((r) => r.provenance === 'NAP').map((r) => r.name)).toEqual([
      'admin',
      'engineering',
      'operations',
      'apiread',
      'apiwrite',
      'auditor',
    ]);
    // roletypes: the distinct provenances
    expect([...new Set(roles.map((r) => r.provenance))].sort()).toEqual(['Custom', 'NAP']);

    // describe / export: GET /authorization/roles/:id, the role itself
    const one = await ipctl('GET', `/authorization/roles/${role._id}`);
    expectStatus(one, 200);
    const exported = { ...decoded(one.body, Role), _id: undefined };
    expect(exported).toMatchObject({ name: 'ipctl-viewer', provenance: 'Custom', allowedMethods, allowedViews: [] });

    // import --replace: delete by id (200, { status, message }), then POST the file as it is
    const del = await ipctl('DELETE', `/authorization/roles/${role._id}`);
    expectStatus(del, 200);
    decoded(del.body, ack);
    expect((await ipctl('GET', `/authorization/roles/${role._id}`)).status).toBe(404);
    const imported = await ipctl('POST', '/authorization/roles', { body: { role: marshal(exported, Role) } });
    expectStatus(imported, 200);
    const again = decoded(imported.body, created(Role)).data;
    expect(again).toMatchObject({ name: 'ipctl-viewer', allowedMethods });

    // a method NAP does not have is refused by name, as ipctl's own check would
    const unknown = await ipctl('POST', '/authorization/roles', {
      body: {
        role: {
          name: 'ipctl-bad',
          provenance: 'Custom',
          description: '',
          allowedMethods: [{ name: 'nosuch', provenance: 'WorkFlowEngine' }],
          allowedViews: [],
        },
      },
    });
    expect(unknown).toMatchObject({ status: 400, body: { message: expect.stringContaining('body.role.allowedMethods[0]') } });

    // a group given the role (ipctl's group create carries assignedRoles) keeps it from being deleted
    const group = await ipctl('POST', '/authorization/groups', {
      body: {
        group: {
          name: 'ipctl-viewers',
          description: '',
          provenance: 'Pronghorn',
          assignedRoles: [{ roleId: again._id }],
          inactive: false,
          memberOf: [],
        },
      },
    });
    expectStatus(group, 200);
    ipctlGroupId = group.body.data._id;
    expect(group.body.data.assignedRoles).toEqual([{ roleId: again._id }]);
    const inUse = await ipctl('DELETE', `/authorization/roles/${again._id}`);
    expect(inUse).toMatchObject({ status: 409, body: { code: 'ROLE_IN_USE', message: expect.stringContaining('ipctl-viewers') } });
    // a built-in role is read-only
    expect((await ipctl('DELETE', '/authorization/roles/admin')).status).toBe(409);
  });

  it('clears the custom roles (role clear): deletes each once no group holds it', async () => {
    expect((await ipctl('DELETE', `/authorization/groups/${ipctlGroupId}`)).status).toBe(200);
    for (const role of (await getAll('/authorization/roles', Role)).filter((r) => r.provenance === 'Custom')) {
      expect((await ipctl('DELETE', `/authorization/roles/${role._id}`)).status).toBe(200);
    }
    expect((await getAll('/authorization/roles', Role)).filter((r) => r.provenance === 'Custom')).toEqual([]);
  });
});

describe('ipctl views (views.go)', () => {
  it('answers get views (GET /authorization/views) 404 saying NAP has no views and a role allows methods; views given a role are kept', async () => {
    // ipctl expects 200 and shows the body of any other answer as the command's error
    const views = await ipctl('GET', '/authorization/views', { query: { limit: '100', skip: '0' } });
    expect(views).toMatchObject({
      status: 404,
      body: {
        code: 'NOT_FOUND',
        message: expect.stringMatching(
          /^NAP has no authorization views: .*GET \/authorization\/methods.*allowedViews of a role are kept as given and grant nothing/,
        ),
      },
    });
    // role create --view provenance:path: kept as given, so that an export of Itential imports unchanged
    const allowedViews = [{ provenance: 'AdminEssentials', path: '/admin/' }];
    const create = await ipctl('POST', '/authorization/roles', {
      body: {
        role: {
          name: 'ipctl-views',
          provenance: 'Custom',
          description: '',
          allowedMethods: [{ name: 'getJobs', provenance: 'OperationsManager' }],
          allowedViews,
        },
      },
    });
    expectStatus(create, 200);
    const role = decoded(create.body, created(Role)).data;
    expect(decoded((await ipctl('GET', `/authorization/roles/${role._id}`)).body, Role)).toMatchObject({ allowedViews });
    expectStatus(await ipctl('DELETE', `/authorization/roles/${role._id}`), 200);
  });
});

describe('ipctl profiles (profiles.go)', () => {
  it('creates, lists, gets, exports, imports ({ properties }), activates and deletes profiles', async () => {
    const create = await ipctl('POST', '/profiles', { body: { properties: { id: 'ipctl-profile', description: 'made by ipctl' } } });
    expectStatus(create, 200);
    decoded(create.body, created(Profile)); // the answer is not read further

    const list = await ipctl('GET', '/profiles');
    expectStatus(list, 200);
    const results = decoded(list.body, struct({ results: slice(ProfileRecord), total: 'int' })).results as Loose[];
    expect(results.filter((r) => r.metadata.isActive)).toHaveLength(1); // GetActiveProfile
    const got = await ipctl('GET', '/profiles/ipctl-profile');
    expectStatus(got, 200);
    // Export reads { metadata (skip, limit, total), profile }
    const exported = decoded(got.body, struct({ metadata: struct({ skip: 'int', limit: 'int', total: 'int' }), profile: Profile })).profile;
    expect(exported).toMatchObject({ id: 'ipctl-profile', description: 'made by ipctl' });

    // import: the exported file, as the Profile struct writes it, under another id
    const file = { ...(marshal(exported, Profile) as Record<string, unknown>), id: 'ipctl-imported' };
    expect(file).toMatchObject({ launchDelay: 0, launchTimeout: 0, uiProps: { new_user: '' } });
    const imported = await ipctl('POST', '/profiles/import', { body: { properties: file } });
    expectStatus(imported, 200);
    decoded(imported.body, created(Profile)); // the answer is not read further
    const back = await ipctl('GET', '/profiles/ipctl-imported');
    expect(decoded(back.body, ProfileRecord)).toMatchObject({ profile: { id: 'ipctl-imported', description: 'made by ipctl' } });
    // launchDelay and launchTimeout of the struct (0) do not replace those of systemProps
    expect(back.body.profile.systemProps).toEqual(exported.systemProps);

    // activate: PUT …/active without a body (200), then back
    const active = (results.find((r) => r.metadata.isActive) as Loose).profile.id as string;
    const activate = await ipctl('PUT', '/profiles/ipctl-imported/active');
    expectStatus(activate, 200);
    decoded(activate.body, ack);
    expect((await ipctl('PUT', `/profiles/${active}/active`)).status).toBe(200);

    for (const id of ['ipctl-imported', 'ipctl-profile']) expect((await ipctl('DELETE', `/profiles/${id}`)).status).toBe(200);
  });
});

describe('ipctl lists read in one request', () => {
  it('answers every profile to GET /profiles without a limit (GetAll and GetActiveProfile read one page)', async () => {
    for (let i = 0; i < 55; i++) {
      expect((await ipctl('POST', '/profiles', { body: { properties: { id: `ipctl-many-${i}`, description: '' } } })).status).toBe(200);
    }
    const list = await ipctl('GET', '/profiles');
    const body = decoded(list.body, struct({ results: slice(ProfileRecord), total: 'int' }));
    expect(body.total).toBeGreaterThan(55);
    expect(body.results).toHaveLength(body.total);
    for (let i = 0; i < 55; i++) expect((await ipctl('DELETE', `/profiles/ipctl-many-${i}`)).status).toBe(200);
  });
});

describe('ipctl current user and user settings (current_user.go, user_settings.go)', () => {
  it('reads GET /whoami into CurrentUser: id, username, groups as { id, name, provenance }', async () => {
    const me = await ipctl('GET', '/whoami');
    expectStatus(me, 200);
    const user = decoded(me.body, CurrentUser);
    expect(user).toMatchObject({ id: expect.any(String), username: TEST_ADMIN.username, roles: ['admin'] });
    expect(user.groups).toEqual([
      expect.objectContaining({ id: expect.any(String), name: expect.any(String), provenance: expect.any(String) }),
    ]);
  });

  it('reads GET /user/settings (the active user of project copy and import): username', async () => {
    const res = await ipctl('GET', '/user/settings');
    expectStatus(res, 200);
    const settings = decoded(res.body, UserSettings);
    expect(settings).toMatchObject({ _id: expect.any(String), username: TEST_ADMIN.username, inactive: false });
    expect(settings.memberOf).toEqual([expect.objectContaining({ groupId: expect.any(String) })]);
  });
});

describe('ipctl integration models and integrations (integration_models.go, integrations.go)', () => {
  const openapi = {
    openapi: '3.0.3',
    info: { title: 'Ipctl Petstore', version: '1.0.0', description: 'pets' },
    servers: [{ url: 'http://127.0.0.1:9/api' }],
    paths: { '/pets': { get: { operationId: 'listPets', responses: { '200': { description: 'ok' } } } } },
  };

  it('creates a model (200, data.versionId), gets it by versionId, lists integrationModels, exports and deletes it by model', async () => {
    const res = await ipctl('POST', '/integration-models', { body: { model: openapi } });
    expectStatus(res, 200);
    const versionId = decoded(res.body, struct({ message: 'string', status: 'string', data: 'map' })).data.versionId;
    expect(versionId).toBe('Ipctl Petstore:1.0.0');
    const model = await ipctl('GET', `/integration-models/${encodeURIComponent(versionId)}`);
    expectStatus(model, 200);
    expect(decoded(model.body, IntegrationModel)).toMatchObject({ versionId, model: versionId, description: 'pets' });

    const all = await ipctl('GET', '/integration-models');
    expectStatus(all, 200);
    const models = decoded(all.body, struct({ integrationModels: slice(IntegrationModel), total: 'int' })).integrationModels as Loose[];
    expect(models.map((m) => m.model)).toContain(versionId);
    const exported = await ipctl('GET', `/integration-models/${encodeURIComponent(versionId)}/export`);
    expect(exported).toMatchObject({ status: 200, body: { info: { title: 'Ipctl Petstore' } } });

    // integrations of it: NewIntegration(name, model) puts the model in properties.type and leaves model empty
    const integration = marshal(
      { name: 'ipctl-pets', type: 'Adapter', virtual: true, properties: { id: 'ipctl-pets', type: versionId } },
      Integration,
    );
    expect(integration).toMatchObject({ model: '', loggerProps: null, systemProps: null, eventDeduplication: null });
    const made = await ipctl('POST', '/integrations', { body: { properties: integration } });
    expectStatus(made, 200);
    expect(decoded(made.body, created(Integration)).data).toMatchObject({ name: 'ipctl-pets', model: versionId });
    const one = await ipctl('GET', '/integrations/ipctl-pets');
    expectStatus(one, 200);
    expect(decoded(one.body, struct({ data: Integration, metadata: 'map' })).data.name).toBe('ipctl-pets');
    const list = await ipctl('GET', '/integrations');
    expectStatus(list, 200);
    const items = decoded(list.body, struct({ results: slice(struct({ data: Integration, metadata: 'map' })), total: 'int' }))
      .results as Loose[];
    expect(items.map((i) => i.data.name)).toContain('ipctl-pets');
    expect((await ipctl('DELETE', '/integrations/ipctl-pets')).status).toBe(200);

    // model clear: DELETE /integration-models/<model> for each listed
    for (const m of models.filter((x) => x.model === versionId)) {
      expect((await ipctl('DELETE', `/integration-models/${encodeURIComponent(m.model)}`)).status).toBe(200);
    }
  });
});

describe('ipctl adapters and adapter models (adapters.go, adapter_models.go)', () => {
  it('lists the adapter model types as adapterModels', async () => {
    const res = await ipctl('GET', '/adapter-models/types');
    expectStatus(res, 200);
    expect(decoded(res.body, struct({ adapterModels: slice('string') })).adapterModels).toEqual(expect.arrayContaining(['HTTP']));
  });

  it('creates (200, data), lists, gets, updates, exports, imports, starts, stops and deletes an adapter', async () => {
    const template = {
      name: 'ipctl-http',
      type: 'Adapter',
      model: '@nap/adapter-http',
      properties: {
        id: 'ipctl-http',
        type: 'HTTP',
        brokers: [],
        groups: [],
        properties: { server: { protocol: 'http', host: '127.0.0.1', port: 9, base_path: '/api' }, authentication: { type: 'none' } },
      },
      isEncrypted: false,
      loggerProps: { log_level: 'info' },
      virtual: false,
    };
    const made = await ipctl('POST', '/adapters', { body: { properties: marshal(template, Adapter) } });
    expectStatus(made, 200);
    expect(decoded(made.body, created(Adapter)).data.name).toBe('ipctl-http');

    const list = await ipctl('GET', '/adapters');
    expectStatus(list, 200);
    const adapters = decoded(list.body, struct({ results: slice(AdapterRecord), total: 'int' })).results as Loose[];
    expect(adapters.map((a) => a.data.name)).toContain('ipctl-http');
    const one = await ipctl('GET', '/adapters/ipctl-http');
    expectStatus(one, 200);
    const current = decoded(one.body, AdapterRecord).data;

    // edit: the record read, changed, PUT back under { properties } (200, data)
    const edited = marshal({ ...current, loggerProps: { log_level: 'debug' } }, Adapter);
    const updated = await ipctl('PUT', '/adapters/ipctl-http', { body: { properties: edited } });
    expectStatus(updated, 200);
    expect(decoded(updated.body, created(Adapter)).data.name).toBe('ipctl-http');

    // export is Get; import posts the exported data under another name
    const file = { ...(marshal(current, Adapter) as Loose), name: 'ipctl-http-2' };
    file.properties.id = 'ipctl-http-2';
    const imported = await ipctl('POST', '/adapters/import', { body: { properties: file } });
    expectStatus(imported, 200);
    expect(decoded(imported.body, created(Adapter)).data.name).toBe('ipctl-http-2');

    // start and stop: PUT without a body (200)
    expect((await ipctl('PUT', '/adapters/ipctl-http/start')).status).toBe(200);
    expect((await ipctl('PUT', '/adapters/ipctl-http/stop')).status).toBe(200);
    for (const name of ['ipctl-http', 'ipctl-http-2']) expect((await ipctl('DELETE', `/adapters/${name}`)).status).toBe(200);
  });
});

describe('ipctl applications (applications.go)', () => {
  it('lists applications and gets one as { data, metadata }', async () => {
    const list = await ipctl('GET', '/applications');
    expectStatus(list, 200);
    const apps = decoded(list.body, struct({ results: slice(ApplicationRecord), isAlive: 'int' })).results as Loose[];
    expect(apps.map((a) => a.data.name)).toContain('MOP');
    const one = await ipctl('GET', '/applications/MOP');
    expectStatus(one, 200);
    expect(decoded(one.body, ApplicationRecord).data.name).toBe('MOP');
  });

  it('restarts an application with PUT …/restart without a body (200), and it runs again', async () => {
    const res = await ipctl('PUT', '/applications/MOP/restart');
    expectStatus(res, 200);
    decoded(res.body, ack);
    await eventually('MOP running again', async () => (await ipctl('GET', '/applications/MOP')).body.metadata?.state === 'RUNNING', {
      timeoutMs: 30_000,
    });
  });
});

describe('ipctl prebuilts (prebuilts.go)', () => {
  it('imports a package (200, data.name and _id), finds it by name, gets, exports and deletes it', async () => {
    const workflow = workflowDocument('@ipctl-demo: hello', { a1: task('merge', { data: [{ key: 'a', value: 1 }] }) }, [
      ['workflow_start', 'a1'],
      ['a1', 'workflow_end'],
    ]);
    const pkg = {
      metadata: {
        name: '@ipctl/demo',
        version: '1.0.0',
        description: 'a demo',
        author: 'ipctl',
        license: 'Apache-2.0',
        keywords: ['demo'],
      },
      manifest: { bundleName: 'demo', fingerprint: 'f1', createdEpoch: '1700000000000', artifacts: [] },
      bundles: [{ type: 'workflow', data: workflow }],
      readme: '# demo',
    };
    // Import(in PrebuiltPackage, overwrite) marshals the package struct
    const res = await ipctl('POST', '/prebuilts/import', {
      body: { options: { overwrite: false }, prebuilt: marshal(pkg, PrebuiltPackage) },
    });
    expectStatus(res, 200);
    const data = decoded(res.body, created(Prebuilt)).data;
    expect(data).toMatchObject({ name: '@ipctl/demo', _id: expect.any(String) });

    // GetByName: GET /prebuilts, the one whose name matches, then GET /prebuilts/:id
    const list = await ipctl('GET', '/prebuilts');
    expectStatus(list, 200);
    const prebuilts = decoded(list.body, struct({ results: slice(Prebuilt), total: 'int' })).results as Loose[];
    const found = prebuilts.find((p) => p.name === '@ipctl/demo');
    expect(found).toMatchObject({ _id: data._id, version: '1.0.0', description: 'a demo' });
    const one = await ipctl('GET', `/prebuilts/${data._id}`);
    expectStatus(one, 200);
    expect(decoded(one.body, Prebuilt)).toMatchObject({ name: '@ipctl/demo', components: [expect.objectContaining({ type: 'workflow' })] });
    const exported = await ipctl('GET', `/prebuilts/${data._id}/export`);
    expectStatus(exported, 200);
    expect(decoded(exported.body, PrebuiltPackage)).toMatchObject({ metadata: { name: '@ipctl/demo' }, bundles: [{ type: 'workflow' }] });
    expect((await ipctl('DELETE', `/prebuilts/${data._id}`)).status).toBe(200);
  });
});

describe('ipctl health (health.go)', () => {
  it('decodes /health/status, /health/system, /health/server, /health/applications and /health/adapters', async () => {
    const status = await ipctl('GET', '/health/status');
    expectStatus(status, 200);
    expect(
      decoded(
        status.body,
        struct({
          host: 'string',
          serverId: 'string',
          serverName: 'string',
          services: slice(struct({ service: 'string', status: 'string' })),
          timestamp: 'int',
          apps: 'string',
          adapters: 'string',
        }),
      ),
    ).toMatchObject({ apps: 'running' });
    const system = await ipctl('GET', '/health/system');
    const cpu = struct({ model: 'string', speed: 'int', times: struct({ user: 'int', nice: 'int', sys: 'int', idle: 'int', irq: 'int' }) });
    expect(
      decoded(
        system.body,
        struct({
          arch: 'string',
          release: 'string',
          uptime: 'float',
          freemem: 'int64',
          totalmem: 'int64',
          loadavg: slice('float'),
          cpus: slice(cpu),
        }),
      ),
    ).toMatchObject({ arch: expect.any(String) });
    const server = await ipctl('GET', '/health/server');
    decoded(
      server.body,
      struct({
        version: 'string',
        release: 'string',
        arch: 'string',
        platform: 'string',
        versions: mapOf('string'),
        memoryUsage: MemoryUsage,
        cpuUsage: CpuUsage,
        uptime: 'float',
        pid: 'int',
        dependencies: mapOf('string'),
      }),
    );
    for (const path of ['/health/applications', '/health/adapters']) {
      const res = await ipctl('GET', path);
      expectStatus(res, 200);
      decoded(res.body, struct({ results: slice(ComponentHealth) }));
    }
  });
});
