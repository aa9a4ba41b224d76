import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { CATALOG, SPEC_ADDITIONS, getOperation, operationsOf, pathParams, subjectOf } from '../src/catalog';
import { DEFAULT_TIMEOUT_MS } from '../src/catalog/types';
import type { OperationDef } from '../src/catalog/types';
import { ROLE_SETS } from '../src/roles';
import { SERVICE_NAMES } from '../src/services';
import type { ServiceName } from '../src/services';
import { compileOperation } from '../src/validation';
import {
  authenticationTable,
  busOnlyGatewayMethods,
  manualTasks,
  mentionedRoutes,
  normalise,
  numberedOperations,
  proseRoutes,
  readSpec,
  routeKey,
} from './spec-parse';
import type { SpecRoute } from './spec-parse';
import { tableRoutes } from './spec-parse';

const spec = readSpec();
const httpOps = CATALOG.filter((op): op is OperationDef & { http: NonNullable<OperationDef['http']> } => op.http !== undefined);
const byRoute = new Map(httpOps.map((op) => [routeKey(op.http), op]));

function opAt(route: SpecRoute): OperationDef | undefined {
  return byRoute.get(routeKey(route));
}

/** Every route the spec names: numbered operations, table rows, prose, the manual tasks. */
function specRoutes(): Map<string, SpecRoute> {
  const routes = new Map<string, SpecRoute>();
  const add = (r: SpecRoute): void => {
    routes.set(routeKey(r), r);
  };
  numberedOperations(spec).forEach(add);
  tableRoutes(spec).forEach(add);
  proseRoutes(spec, 11).forEach(add);
  mentionedRoutes(spec).forEach(add);
  for (const task of manualTasks(spec)) add({ method: 'GET', path: `/mop/task/${task}` });
  return routes;
}

/** Which service owns a route, by its first segment (ARCHITECTURE section 1). */
const OWNER_BY_FIRST_SEGMENT: Record<string, ServiceName> = {
  audit: 'admin',
  workflow_engine: 'workflow',
  'operations-manager': 'workflow',
  automation_catalog: 'workflow',
  'automation-studio': 'studio',
  template_builder: 'studio',
  formbuilder: 'studio',
  'json-forms': 'studio',
  workflow_builder: 'studio',
  transformations: 'studio',
  tags: 'studio',
  mop: 'mop',
  gw: 'gateway-devices',
  configuration_manager: 'gateway-devices',
  orch_manager: 'orch-proxy',
  'user-management': 'admin',
  authorization: 'admin',
  login: 'admin',
  oauth: 'admin',
  sso: 'admin',
  whoami: 'admin',
  user: 'admin',
  mySession: 'admin',
  logout: 'admin',
  adapters: 'admin',
  'adapter-models': 'admin',
  applications: 'admin',
  integrations: 'admin',
  'integration-models': 'admin',
  profiles: 'admin',
  prebuilts: 'admin',
  'prebuilts-repository': 'admin',
  'external-links': 'admin',
  indexes: 'admin',
  schema: 'admin',
  health: 'admin',
  exporter_metrics: 'admin',
};

describe('the spec parser', () => {
  it('finds the parts of the spec the catalog is checked against', () => {
    expect(numberedOperations(spec).size).toBe(19);
    expect([...numberedOperations(spec).keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: 19 }, (_, i) => i + 1));
    const named = tableRoutes(spec).filter((r) => r.name !== undefined);
    expect(named).toHaveLength(145);
    expect(authenticationTable(spec)).toHaveLength(11);
    expect(proseRoutes(spec, 11).map(routeKey).sort()).toEqual(['POST /gw/sshSendCommandExec', 'POST /gw/sshSendConfigSet']);
    expect(manualTasks(spec)).toEqual([
      'chooseDevice',
      'diffConfig',
      'reloadFailed',
      'reviewSummary',
      'runTemplatesDiff',
      'verifyConfig',
      'viewTemplateResults',
    ]);
    expect(busOnlyGatewayMethods(spec)).toHaveLength(64);
    expect(busOnlyGatewayMethods(spec)).toEqual(
      expect.arrayContaining(['createDevice', 'isAlive', 'getRunnerModule', 'runScriptEnv', 'getPlatformJson']),
    );
    // 19 numbered + 139 distinct table routes + 7 manual tasks
    expect(specRoutes().size).toBe(165);
  });
});

describe('catalog against the spec', () => {
  it('has every route of the spec, as a spec route', () => {
    const missing: string[] = [];
    const flagged: string[] = [];
    for (const [key] of specRoutes()) {
      const op = byRoute.get(key);
      if (op === undefined) missing.push(key);
      else if (op.addition === true) flagged.push(`${key} (${op.id})`);
    }
    expect(missing).toEqual([]);
    expect(flagged).toEqual([]);
  });

  it('has no HTTP route beyond the spec that is not a listed addition', () => {
    const spec = specRoutes();
    const unlisted = httpOps
      .filter((op) => !spec.has(routeKey(op.http)))
      .filter((op) => !SPEC_ADDITIONS.includes(op.id) || op.addition !== true)
      .map((op) => `${op.id} ${op.http.method} ${op.http.path}`);
    expect(unlisted).toEqual([]);
  });

  it('lists exactly the operations flagged as additions in SPEC_ADDITIONS', () => {
    const flagged = CATALOG.filter((op) => op.addition === true).map((op) => op.id);
    expect([...SPEC_ADDITIONS].sort()).toEqual(flagged.sort());
    for (const id of SPEC_ADDITIONS) expect(getOperation(id).addition).toBe(true);
  });

  it('names each operation of the spec tables as the spec does, on its route', () => {
    const rows = tableRoutes(spec).filter((r) => r.name !== undefined);
    const problems: string[] = [];
    const rowsByRoute = new Map<string, typeof rows>();
    for (const row of rows) rowsByRoute.set(routeKey(row), [...(rowsByRoute.get(routeKey(row)) ?? []), row]);
    for (const [key, sharing] of rowsByRoute) {
      const holder = byRoute.get(key);
      if (holder === undefined) {
        problems.push(`${key}: no operation`);
        continue;
      }
      if (!sharing.some((row) => row.name === holder.name)) {
        problems.push(`${key}: served by ${holder.id}, the spec names ${sharing.map((r) => r.name).join(' / ')}`);
      }
      // Operations that share a route with the holder stay in the catalog as bus-only operations.
      for (const row of sharing.filter((r) => r.name !== holder.name)) {
        const twin = CATALOG.find((op) => op.service === holder.service && op.name === row.name);
        if (twin === undefined) problems.push(`${key}: ${row.name} shares the route and is missing`);
        else if (twin.http !== undefined) problems.push(`${key}: ${twin.id} shares the route and must be bus-only`);
      }
    }
    expect(problems).toEqual([]);
    // the one shared route of the spec
    expect(getOperation('gateway-devices.createInventoryDevice').http).toEqual({ method: 'POST', path: '/gw/createInventoryDevice' });
    expect(getOperation('gateway-devices.updateInventoryDevice').http).toBeUndefined();
  });

  it('serves each manual task at GET /mop/task/<name> with jobId and taskId required and read roles', () => {
    for (const task of manualTasks(spec)) {
      const op = opAt({ method: 'GET', path: `/mop/task/${task}` });
      expect(op?.id).toBe(`mop.${task}`);
      expect(op?.addition).toBeUndefined();
      expect(op?.request.query?.required).toEqual(['jobId', 'taskId']);
      expect([...(op?.roles ?? [])]).toEqual([...ROLE_SETS.read]);
      expect(op?.notes).toMatch(/finish/);
    }
    expect(getOperation('mop.reviewSummary').request.query?.properties).toHaveProperty('download');
  });

  it('has every gateway method with no HTTP route as a bus-only gateway-devices operation', () => {
    const problems: string[] = [];
    for (const method of busOnlyGatewayMethods(spec)) {
      const op = CATALOG.find((o) => o.id === `gateway-devices.${method}`);
      if (op === undefined) problems.push(`${method}: missing`);
      else if (op.http !== undefined) problems.push(`${method}: has an HTTP route`);
    }
    expect(problems).toEqual([]);
  });

  it('gives the eleven routes of the Authentication table exactly the roles listed', () => {
    for (const { route, roles } of authenticationTable(spec)) {
      const op = opAt(route);
      expect({ route: routeKey(route), roles: [...(op?.roles ?? [])].sort() }).toEqual({
        route: routeKey(route),
        roles: [...roles].sort(),
      });
    }
  });

  it('puts each route in the service that owns its route group', () => {
    const wrong = httpOps
      .map((op) => ({ op, owner: OWNER_BY_FIRST_SEGMENT[op.http.path.split('/')[1] ?? ''] }))
      .filter(({ op, owner }) => owner !== op.service)
      .map(({ op, owner }) => `${op.http.path}: in ${op.service}, owned by ${owner ?? 'nobody'}`);
    expect(wrong).toEqual([]);
  });
});

describe('catalog consistency', () => {
  it('has unique ids, names within a service, subjects and routes', () => {
    const dupes = (xs: string[]): string[] => xs.filter((x, i) => xs.indexOf(x) !== i);
    expect(dupes(CATALOG.map((op) => op.id))).toEqual([]);
    expect(dupes(CATALOG.map((op) => subjectOf(op)))).toEqual([]);
    expect(dupes(httpOps.map((op) => `${op.http.method} ${normalise(op.http.path)}`))).toEqual([]);
    for (const op of CATALOG) expect(op.id).toBe(`${op.service}.${op.name}`);
  });

  it('has no two routes that can match the same request path', () => {
    // the original platform's JST routes: a literal segment wins over a parameter (the gateway's RouteTable looks literals up first)
    // and the job archives beside the jobs: a job id is 24 hex digits, never "archives"; an audit record's seq is digits, never "verify" or "export"
    const literalFirst = new Set([
      '/audit/:seq ~ /audit/verify',
      '/audit/:seq ~ /audit/export',
      '/transformations/import ~ /transformations/:id',
      '/transformations/validate ~ /transformations/:id',
      '/operations-manager/jobs/:jobId ~ /operations-manager/jobs/archives',
      '/operations-manager/jobs/:jobId/events ~ /operations-manager/jobs/archives/:archiveId',
    ]);
    const overlaps: string[] = [];
    for (const [i, a] of httpOps.entries()) {
      for (const b of httpOps.slice(i + 1)) {
        if (a.http.method !== b.http.method) continue;
        const sa = a.http.path.split('/');
        const sb = b.http.path.split('/');
        if (sa.length !== sb.length) continue;
        const pair = `${a.http.path} ~ ${b.http.path}`;
        if (sa.every((s, k) => s === sb[k] || s.startsWith(':') || (sb[k] ?? '').startsWith(':')) && !literalFirst.has(pair))
          overlaps.push(pair);
      }
    }
    expect(overlaps).toEqual([]);
  });

  it('derives subjects as nap.rpc.<service>.<name>', () => {
    expect(subjectOf('workflow.startJobWithOptions')).toBe('nap.rpc.workflow.startJobWithOptions');
    expect(subjectOf(getOperation('gateway-devices.isAlive'))).toBe('nap.rpc.gateway-devices.isAlive');
    for (const op of CATALOG) expect(subjectOf(op)).toMatch(/^nap\.rpc\.[a-z-]+\.[A-Za-z]+$/);
    expect(() => subjectOf('workflow.startJobNow')).toThrow(/Unknown operation "workflow.startJobNow"/);
    expect(() => getOperation('nope')).toThrow(/nope/);
  });

  it('partitions the catalog by service', () => {
    expect(SERVICE_NAMES.flatMap((s) => operationsOf(s)).length).toBe(CATALOG.length);
    for (const s of SERVICE_NAMES) {
      expect(operationsOf(s).length).toBeGreaterThan(0);
      expect(operationsOf(s).every((op) => op.service === s)).toBe(true);
    }
  });

  it('compiles every schema of every operation', () => {
    const failures: string[] = [];
    for (const op of CATALOG) {
      try {
        compileOperation(op);
      } catch (e) {
        failures.push((e as Error).message);
      }
    }
    expect(failures).toEqual([]);
  });

  it('writes only keywords Ajv knows (strict mode catches typos such as "requried")', () => {
    const strict = new Ajv({ strict: true, strictRequired: false, allowUnionTypes: true });
    addFormats(strict);
    const failures: string[] = [];
    for (const op of CATALOG) {
      for (const schema of [op.request.params, op.request.query, op.request.body, op.response.body]) {
        if (schema === undefined) continue;
        try {
          strict.compile(schema);
        } catch (e) {
          failures.push(`${op.id}: ${(e as Error).message}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('gives every schema the $id nap:<id>/<part>', () => {
    for (const op of CATALOG) {
      const parts = { params: op.request.params, query: op.request.query, body: op.request.body, response: op.response.body };
      for (const [part, schema] of Object.entries(parts)) {
        if (schema !== undefined) expect(schema.$id).toBe(`nap:${op.id}/${part}`);
      }
    }
  });

  it('keeps every operation schema self-contained: no nested $id, no $ref', () => {
    const found: string[] = [];
    const walk = (node: unknown, where: string, top: boolean): void => {
      if (node === null || typeof node !== 'object') return;
      const record = node as Record<string, unknown>;
      if (!top && typeof record.$id === 'string') found.push(`${where}: nested $id ${record.$id}`);
      if ('$ref' in record) found.push(`${where}: $ref`);
      for (const [key, value] of Object.entries(record)) walk(value, `${where}/${key}`, false);
    };
    for (const op of CATALOG) {
      for (const schema of [op.request.params, op.request.query, op.request.body, op.response.body]) walk(schema, op.id, true);
    }
    expect(found).toEqual([]);
  });

  it('describes every :param of a path, and nothing else, as a required non-empty string', () => {
    for (const op of httpOps) {
      const names = pathParams(op.http.path);
      const params = op.request.params;
      if (names.length === 0) {
        expect({ id: op.id, params }).toEqual({ id: op.id, params: undefined });
        continue;
      }
      expect({ id: op.id, members: Object.keys((params?.properties ?? {}) as object) }).toEqual({ id: op.id, members: names });
      expect({ id: op.id, required: params?.required }).toEqual({ id: op.id, required: names });
      expect(params?.additionalProperties).toBe(false);
      for (const n of names)
        expect((params?.properties as Record<string, { type: string; minLength: number }>)[n]).toMatchObject({
          type: 'string',
          minLength: 1,
        });
    }
  });

  it('gives no GET route a body, and no bus-only operation params or a query', () => {
    expect(httpOps.filter((op) => op.http.method === 'GET' && op.request.body !== undefined).map((op) => op.id)).toEqual([]);
    expect(
      CATALOG.filter((op) => op.http === undefined && (op.request.params !== undefined || op.request.query !== undefined)).map(
        (op) => op.id,
      ),
    ).toEqual([]);
  });

  it('requires credentials everywhere except login, token, browser sign-in and the bus-only credential checks', () => {
    const open = CATALOG.filter((op) => op.auth === 'public')
      .map((op) => op.id)
      .sort();
    expect(open).toEqual([
      'admin.authenticate',
      'admin.getSamlMetadata',
      'admin.getSsoMethods',
      'admin.getTokenKeys',
      'admin.login',
      'admin.oauthToken',
      'admin.resolveSession',
      'admin.samlAcs',
      'admin.ssoCallback',
      'admin.ssoLogin',
    ]);
    for (const op of CATALOG.filter((o) => o.auth !== 'public'))
      expect({ id: op.id, roles: op.roles.length > 0 }).toEqual({ id: op.id, roles: true });
    expect(getOperation('admin.oauthToken').accepts).toEqual(['application/x-www-form-urlencoded']);
  });

  it('uses the default role sets of the architecture outside the Authentication table', () => {
    const sets = Object.values(ROLE_SETS).map((s) => [...s].sort().join(','));
    const authRoutes = new Set(authenticationTable(spec).map((r) => routeKey(r.route)));
    for (const op of CATALOG) {
      if (op.auth === 'public' || (op.http !== undefined && authRoutes.has(routeKey(op.http)))) continue;
      expect({ id: op.id, set: sets.includes([...op.roles].sort().join(',')) }).toEqual({ id: op.id, set: true });
    }
    // whoami, getUserSettings, mySession, logout, changeMyPassword: any caller's own session and account; getServerHealth: the release clients read before anything else;
    // the audit trail: admin and auditor
    for (const op of operationsOf('admin').filter((o) => o.http !== undefined && o.auth !== 'public' && o.http.path.startsWith('/audit')))
      expect({ id: op.id, roles: op.roles }).toEqual({ id: op.id, roles: ROLE_SETS.audit });
    for (const op of operationsOf('admin').filter(
      (o) =>
        o.http !== undefined &&
        o.auth !== 'public' &&
        !['whoami', 'getUserSettings', 'mySession', 'logout', 'changeMyPassword', 'getServerHealth'].includes(o.name) &&
        !o.http.path.startsWith('/audit'),
    )) {
      if (authRoutes.has(routeKey(op.http as SpecRoute))) continue;
      expect({ id: op.id, roles: op.roles }).toEqual({ id: op.id, roles: ROLE_SETS.admin });
    }
    for (const id of [
      'workflow.startJobWithOptions',
      'workflow.retryTask',
      'workflow.cancelJobs',
      'workflow.pauseJob',
      'workflow.resumeJob',
      'workflow.finishTask',
      'mop.RunCommandTemplate',
    ]) {
      expect({ id, roles: getOperation(id).roles }).toEqual({ id, roles: ROLE_SETS.run });
    }
  });

  it('gives device and run operations longer timeouts and health and discovery short ones', () => {
    expect(CATALOG.filter((op) => !(Number.isInteger(op.timeoutMs) && op.timeoutMs > 0)).map((op) => op.id)).toEqual([]);
    const runSet = [...ROLE_SETS.run].sort().join(',');
    const deviceOps = CATALOG.filter(
      (op) =>
        (op.service === 'orch-proxy' || (op.service !== 'studio' && [...op.roles].sort().join(',') === runSet)) &&
        /^(Run|run|ssh|netconf)|^(sendRequest|passThru|GetBootFlash|restAction|restQuery|setLeaf)$|Iac$|Playbook$/.test(op.name) &&
        // triggers start a job and answer at once; the job's tasks talk to devices later
        !/Trigger$/.test(op.name),
    );
    expect(deviceOps.length).toBeGreaterThan(30);
    expect(deviceOps.filter((op) => op.timeoutMs < 120_000).map((op) => `${op.id} ${op.timeoutMs}`)).toEqual([]);
    const healthOps = httpOps.filter((op) => op.http.path.startsWith('/health/'));
    expect(healthOps.length).toBe(7);
    expect(healthOps.filter((op) => op.timeoutMs >= DEFAULT_TIMEOUT_MS).map((op) => `${op.id} ${op.timeoutMs}`)).toEqual([]);
    expect(getOperation('admin.getAccounts').timeoutMs).toBe(DEFAULT_TIMEOUT_MS);
  });

  it("gives every operation a summary, and the spec routes the spec's purpose", () => {
    expect(CATALOG.filter((op) => op.summary.length < 4).map((op) => op.id)).toEqual([]);
    const mismatches: string[] = [];
    for (const row of tableRoutes(spec).filter((r) => r.name !== undefined)) {
      const purpose = (row.cells[2] ?? '')
        .replace(/\s*\(operation \d+\)$/, '')
        .replace(/^create a the /, 'create a ')
        .replace(/^same, /, '')
        .toLowerCase();
      const op = CATALOG.find((o) => o.name === row.name && o.http !== undefined && routeKey(o.http) === routeKey(row));
      if (op === undefined || /^operation \d+$/.test(purpose)) continue;
      if (!op.summary.toLowerCase().includes(purpose)) mismatches.push(`${op.id}: "${op.summary}" does not say "${purpose}"`);
    }
    expect(mismatches).toEqual([]);
  });

  it('is frozen, so no consumer can change the shared schemas', () => {
    const op = getOperation('workflow.startJobWithOptions');
    expect(Object.isFrozen(op)).toBe(true);
    expect(Object.isFrozen(op.request.body)).toBe(true);
    expect(Object.isFrozen(CATALOG)).toBe(true);
  });
});
