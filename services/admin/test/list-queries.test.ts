import { ADMIN_OPERATIONS } from '@nap/contracts';
import type { OperationDef } from '@nap/contracts';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';

/**
 * The queries of the admin list routes: a member, filter field or sort field a route does not
 * serve is refused with 400 VALIDATION_FAILED naming it (never ignored with every record
 * answered), and every query the console, `nap` and the platform's existing clients send is taken.
 */

let platform: TestPlatform;
let token: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  token = await platform.login();
});

afterAll(async () => {
  await platform?.stop();
});

type Failure = { code: string; message: string; details?: { member: string }[] };
type Page<T> = { results: T[]; total: number };

/** Every admin GET route that answers a list (`results`), its path parameters filled with `x`; the sign-in page's own list aside. */
const LIST_ROUTES = Object.values(ADMIN_OPERATIONS as Record<string, OperationDef>).filter(
  (op) =>
    op.http?.method === 'GET' &&
    op.auth !== 'public' &&
    (op.response.body as { properties?: Record<string, unknown> } | undefined)?.properties?.results !== undefined,
);
const pathOf = (op: OperationDef): string => (op.http?.path ?? '').replace(/:[A-Za-z]+/g, 'x');
const membersOf = (op: OperationDef): Record<string, { type?: string; anyOf?: unknown[] }> =>
  (op.request.query as { properties?: Record<string, { type?: string; anyOf?: unknown[] }> } | undefined)?.properties ?? {};
const FILTERED_ROUTES = LIST_ROUTES.filter((op) => membersOf(op).equals !== undefined);

async function refusal(path: string): Promise<{ status: number; body: Failure }> {
  const res = await platform.http('GET', path, { token });
  return { status: res.status, body: res.body as Failure };
}

async function ok<T>(path: string, options: { token?: string } = { token }): Promise<Page<T>> {
  const res = await platform.http('GET', path, options);
  expect({ path, status: res.status, body: res.status === 200 ? 'ok' : res.body }).toEqual({ path, status: 200, body: 'ok' });
  return res.body as Page<T>;
}

describe('admin list routes', () => {
  it('cover every list of the admin service, the shared list options or none', () => {
    expect(LIST_ROUTES.map((op) => op.name)).toEqual(
      expect.arrayContaining(['getAccounts', 'getGroups', 'getAssignableRoles', 'getAdapters', 'getIntegrations', 'getAudit', 'getLinks']),
    );
    for (const op of LIST_ROUTES)
      expect({ op: op.id, closed: (op.request.query as { additionalProperties?: boolean } | undefined)?.additionalProperties }).toEqual({
        op: op.id,
        closed: false,
      });
  });

  it.each(LIST_ROUTES.map((op) => [op.id, op] as const))('%s refuses a member it does not serve, naming it', async (_id, op) => {
    for (const [query, member] of [
      ['nosuch=1', 'query.nosuch'],
      ['in[name]=x', 'query.in'],
      ['gt[created]=1', 'query.gt'],
      ['include=name', 'query.include'],
    ] as const) {
      const res = await refusal(`${pathOf(op)}?${query}`);
      expect({ query, status: res.status, code: res.body.code, members: res.body.details?.map((d) => d.member) }).toEqual({
        query,
        status: 400,
        code: 'VALIDATION_FAILED',
        members: [member],
      });
    }
  });

  it.each(FILTERED_ROUTES.map((op) => [op.id, op] as const))(
    '%s refuses a filter or sort field it does not serve, naming it',
    async (_id, op) => {
      const fieldWise = membersOf(op).equals?.anyOf !== undefined;
      const [query, member] = fieldWise
        ? ['equals[nosuch]=x', 'query.equals[nosuch]']
        : ['equals=x&equalsField=nosuch', 'query.equalsField'];
      for (const [q, m] of [
        [query, member],
        ['sort=nosuch', 'query.sort'],
      ]) {
        const res = await refusal(`${pathOf(op)}?${q}`);
        expect({ q, status: res.status, code: res.body.code, members: res.body.details?.map((d) => d.member) }).toEqual({
          q,
          status: 400,
          code: 'VALIDATION_FAILED',
          members: [m],
        });
        expect(res.body.message).toContain('nosuch');
      }
    },
  );
});

describe('the queries existing clients send', () => {
  it('are taken from the console', async () => {
    const accounts = await ok<{ username: string }>('/user-management/accounts?contains[username]=adm&sort=username&skip=0&limit=25');
    expect(accounts.results.map((a) => a.username)).toEqual(['admin']);
    expect((await ok<{ username: string }>('/user-management/accounts?limit=500')).total).toBeGreaterThanOrEqual(1);
    await ok('/user-management/groups');
    await ok('/user-management/roles');
    for (const path of ['/applications', '/health/applications', '/adapters', '/health/adapters', '/integrations'])
      await ok(`${path}?limit=500`);
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const until = new Date(Date.now() + 3_600_000).toISOString();
    const audit = await ok<{ operation: string }>(
      `/audit?limit=25&skip=0&actor=admin&operation=admin.login&outcome=success&since=${since}&until=${until}`,
    );
    expect(audit.results.map((r) => r.operation)).toContain('admin.login');
    await ok('/audit?limit=25&skip=0&targetId=x&equals[target.name]=y');
    await ok('/audit?equals[target.kind]=account&limit=5');
  });

  it('are taken from nap, with the token in the query', async () => {
    await ok('/audit?limit=25&equals[target.name]=admin&equals[target.kind]=account&outcome=failure');
    for (const path of [
      '/adapters',
      '/integration-models',
      '/prebuilts',
      '/profiles',
      '/user-management/accounts',
      '/user-management/groups',
      '/user-management/roles',
    ])
      await ok(path);
    const groups = await ok<{ name: string }>(`/user-management/groups?token=${encodeURIComponent(token)}&limit=5`, {});
    expect(groups.total).toBeGreaterThanOrEqual(1);
  });

  it("are taken from the platform's clients (MCP server, ipctl, Ansible): shared options as text, field-wise equals, skip and limit", async () => {
    const created = await platform.http('POST', '/adapters', {
      token,
      body: {
        properties: {
          name: 'mcp-adapter',
          type: 'Adapter',
          model: '@nap/adapter-http',
          properties: {
            id: 'mcp-adapter',
            type: 'HTTP',
            brokers: [],
            groups: [],
            properties: {
              server: { protocol: 'http', host: '127.0.0.1', port: 9, base_path: '/' },
              authentication: { type: 'none' },
            },
          },
        },
      },
    });
    expect(created.status).toBe(200);
    // the MCP server finds an adapter by its id (the original platform's name for it) and wants one
    const adapter = await ok<{ name: string }>('/health/adapters?equals=mcp-adapter&equalsField=id');
    expect(adapter).toMatchObject({ total: 1, results: [{ name: 'mcp-adapter' }] });
    expect((await ok('/health/adapters?equals=nothing-here&equalsField=id')).total).toBe(0);
    await ok('/health/adapters?limit=1');
    const app = await ok<{ id: string }>('/health/applications?equals=WorkFlowEngine&equalsField=id');
    expect(app.results.map((a) => a.id)).toEqual(['WorkFlowEngine']);
    await ok('/integrations?containsField=model&contains=pets&limit=100&skip=0');
    const accounts = await ok<{ username: string }>('/authorization/accounts?limit=100&skip=0');
    expect(accounts.results.map((a) => a.username)).toContain('admin');
    const byName = await ok<{ username: string }>('/authorization/accounts?equals[username]=admin&sort=username&order=-1');
    expect(byName).toMatchObject({ total: 1, results: [{ username: 'admin' }] });
    await ok('/authorization/groups?equals[name]=nobody&limit=10&skip=0');
  });
});

describe('GET /user-management/roles', () => {
  it('takes the shared list options: filtered, sorted and paged', async () => {
    const all = await ok<{ name: string }>('/user-management/roles');
    expect(all.results[0]?.name).toBe('admin');
    expect(all.total).toBe(all.results.length);
    expect(await ok('/user-management/roles?equals[name]=auditor')).toMatchObject({ total: 1, results: [{ name: 'auditor' }] });
    const sorted = await ok<{ name: string }>('/user-management/roles?sort=name&order=-1&limit=2&skip=1');
    const names = all.results
      .map((r) => r.name)
      .sort()
      .reverse();
    expect(sorted).toEqual({
      total: all.total,
      results: [
        { name: names[1], description: expect.any(String) },
        { name: names[2], description: expect.any(String) },
      ],
    });
    expect((await ok('/user-management/roles?contains=read&containsField=description')).total).toBeGreaterThanOrEqual(1);
  });
});
