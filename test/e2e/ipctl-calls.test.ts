import { TEST_ADMIN, startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { createAutomation, greetWorkflow } from '../support/automation';

/**
 * The calls Itential's command line ipctl (github.com/itential/ipctl, pkg/services) makes, written the
 * way it writes them: every request carries `Content-Type: application/json` and `Accept:
 * application/json` (a bodyless one too, with Content-Length 0), the paging of its GetAll loops
 * (`limit=100&skip=n` until the items read reach the total), and each answer checked the way ipctl
 * checks it: the exact status it expects (200 for every call, creations and imports included, 204 for the
 * delete of a transformation) and the members it reads. A profile with client_id/client_secret takes an OAuth token
 * (golang.org/x/oauth2 clientcredentials, credentials in the form) and sends it as Bearer; one with a
 * username and password logs in with POST /login and keeps the cookie.
 */

let platform: TestPlatform;
let bearer: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: TEST_ADMIN.username,
    client_secret: TEST_ADMIN.password,
  });
  const res = await fetch(`${platform.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
  });
  const token = (await res.json()) as { access_token: string; token_type: string };
  bearer = token.access_token;
}, 60_000);

afterAll(async () => {
  await platform.stop();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- ipctl reads members of answers it types loosely
type Loose = any;

interface Answer {
  status: number;
  body: Loose;
}

/** One request as ipctl's client sends it, with the Bearer token of an OAuth profile. */
async function ipctl(method: string, path: string, options: { query?: Record<string, string>; body?: unknown } = {}): Promise<Answer> {
  const url = new URL(path, platform.url);
  for (const [key, value] of Object.entries(options.query ?? {})) url.searchParams.set(key, value);
  const payload = options.body === undefined ? '' : JSON.stringify(options.body);
  const res = await fetch(url, {
    method,
    headers: {
      authorization: `Bearer ${bearer}`,
      'content-type': 'application/json',
      accept: 'application/json',
      'content-length': String(Buffer.byteLength(payload)),
    },
    body: method === 'GET' ? undefined : payload,
  });
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return { status: res.status, body: await res.json() };
}

/** ipctl's GetAll loop: pages of 100 until as many items were read as the answer's total says. */
async function getAll(path: string, items: (body: Loose) => unknown[], total: (body: Loose) => number): Promise<unknown[]> {
  const read: unknown[] = [];
  for (let skip = 0; ; skip += 100) {
    const page = await ipctl('GET', path, { query: { limit: '100', skip: String(skip) } });
    expect(page.status).toBe(200);
    read.push(...items(page.body));
    if (read.length >= total(page.body)) return read;
    expect(items(page.body).length).toBeGreaterThan(0); // a page that reads nothing would loop for ever
  }
}

describe('ipctl login', () => {
  it('logs in with POST /login (200 exactly) and reads with the session cookie it keeps', async () => {
    const login = await fetch(`${platform.url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ user: { username: TEST_ADMIN.username, password: TEST_ADMIN.password } }),
    });
    expect(login.status).toBe(200);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    expect(cookie).toMatch(/^token=nap1\./);
    const whoami = await fetch(`${platform.url}/whoami`, { headers: { cookie, 'content-type': 'application/json' } });
    expect(whoami.status).toBe(200);
    expect(await whoami.json()).toMatchObject({ username: TEST_ADMIN.username });
  });

  it('takes an OAuth token with the client credentials in the form and a Bearer token type', async () => {
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: TEST_ADMIN.username,
      client_secret: TEST_ADMIN.password,
    });
    const res = await fetch(`${platform.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ access_token: expect.any(String), token_type: expect.stringMatching(/^bearer$/i) });
  });
});

describe('ipctl get accounts, groups, profiles', () => {
  it('pages accounts and gets one by _id', async () => {
    const accounts = (await getAll(
      '/authorization/accounts',
      (b) => b.results,
      (b) => b.total,
    )) as { _id: string; username: string }[];
    const admin = accounts.find((a) => a.username === TEST_ADMIN.username);
    expect(admin?._id).toEqual(expect.any(String));
    const one = await ipctl('GET', `/authorization/accounts/${admin?._id}`);
    expect(one).toMatchObject({ status: 200, body: { _id: admin?._id, username: TEST_ADMIN.username } });
  });

  it('lists groups (results, total) and gets one by _id', async () => {
    await platform.http('POST', '/user-management/groups', { token: bearer, body: { group: { name: 'ipctl-group' } } });
    const groups = await ipctl('GET', '/authorization/groups');
    expect(groups.status).toBe(200);
    const group = (groups.body.results as { _id: string; name: string }[]).find((g) => g.name === 'ipctl-group');
    expect(groups.body.total).toBe(groups.body.results.length);
    const one = await ipctl('GET', `/authorization/groups/${group?._id}`);
    expect(one).toMatchObject({ status: 200, body: { _id: group?._id, name: 'ipctl-group' } });
  });

  it('lists profiles as { metadata.isActive, profile } with one active, gets and deletes one', async () => {
    const created = await platform.http('POST', '/profiles', { token: bearer, body: { properties: { id: 'ipctl-profile' } } });
    expect(created.status).toBe(200);
    const list = await ipctl('GET', '/profiles');
    expect(list.status).toBe(200);
    const results = list.body.results as { metadata: { isActive: boolean }; profile: { id: string } }[];
    expect(results.filter((r) => r.metadata.isActive)).toHaveLength(1);
    expect(results.map((r) => r.profile.id)).toContain('ipctl-profile');
    expect(await ipctl('GET', '/profiles/ipctl-profile')).toMatchObject({
      status: 200,
      body: { metadata: { isActive: false }, profile: { id: 'ipctl-profile' } },
    });
    expect((await ipctl('DELETE', '/profiles/ipctl-profile')).status).toBe(200);
  });
});

describe('ipctl get platform state', () => {
  it('reads applications, adapters, integrations, prebuilts and health as results/total', async () => {
    const apps = await ipctl('GET', '/applications');
    expect(apps.status).toBe(200);
    expect(apps.body.results[0]).toMatchObject({ data: { name: expect.any(String) }, metadata: expect.any(Object) });
    expect(await ipctl('GET', '/applications/WorkFlowEngine')).toMatchObject({ status: 200, body: { data: { name: 'WorkFlowEngine' } } });
    for (const path of ['/adapters', '/integrations', '/prebuilts', '/health/applications', '/health/adapters']) {
      const res = await ipctl('GET', path);
      expect({ path, status: res.status, total: res.body.total }).toEqual({ path, status: 200, total: res.body.results.length });
    }
    expect((await ipctl('GET', '/health/status')).body).toMatchObject({ apps: 'running', services: expect.any(Array) });
    expect((await ipctl('GET', '/health/server')).body).toMatchObject({ release: expect.any(String), pid: expect.any(Number) });
    expect((await ipctl('GET', '/health/system')).body).toMatchObject({ arch: expect.any(String), cpus: expect.any(Array) });
  });
});

describe('ipctl workflows, templates, projects, automations', () => {
  let automationId: string;
  beforeAll(async () => {
    automationId = await createAutomation(platform, bearer, greetWorkflow('ipctl-greet'));
  });

  it('pages workflows (items, total) and gets one by name with equals[name]', async () => {
    const all = (await getAll(
      '/automation-studio/workflows',
      (b) => b.items,
      (b) => b.total,
    )) as { name: string }[];
    expect(all.map((w) => w.name)).toContain('ipctl-greet');
    const byName = await ipctl('GET', '/automation-studio/workflows', { query: { 'equals[name]': 'ipctl-greet' } });
    expect(byName).toMatchObject({ status: 200, body: { total: 1, items: [{ name: 'ipctl-greet', _id: expect.any(String) }] } });
  });

  it('imports a workflow with POST /automation-studio/automations/import (200)', async () => {
    const workflow = { ...greetWorkflow('ipctl-imported'), groups: [], tags: [] };
    const res = await ipctl('POST', '/automation-studio/automations/import', { body: { automations: [workflow] } });
    expect(res.status).toBe(200);
    const byName = await ipctl('GET', '/automation-studio/workflows', { query: { 'equals[name]': 'ipctl-imported' } });
    expect(byName.body.total).toBe(1);
  });

  it('pages templates (items, total)', async () => {
    const res = await ipctl('GET', '/automation-studio/templates', { query: { limit: '100', skip: '0' } });
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(res.body.items.length);
  });

  it('creates (200), pages (data, metadata.total), gets, updates, exports, deletes and imports a project', async () => {
    const created = await ipctl('POST', '/automation-studio/projects', { body: { name: 'ipctl-project', components: [] } });
    expect(created.status).toBe(200);
    const id = created.body.data._id as string;
    expect(created.body.data).toMatchObject({ name: 'ipctl-project' });
    const all = (await getAll(
      '/automation-studio/projects',
      (b) => b.data,
      (b) => b.metadata.total,
    )) as { _id: string }[];
    expect(all.map((p) => p._id)).toContain(id);
    expect(await ipctl('GET', `/automation-studio/projects/${id}`)).toMatchObject({ status: 200, body: { data: { _id: id } } });
    expect((await ipctl('PATCH', `/automation-studio/projects/${id}`, { body: { description: 'from ipctl' } })).status).toBe(200);
    const exported = await ipctl('GET', `/automation-studio/projects/${id}/export`);
    expect(exported.status).toBe(200);
    // ipctl's project import body: the exported project's own members, reference options, no conflict mode
    const project = exported.body as Record<string, unknown>;
    const body = {
      skipReferenceValidation: false,
      assignNewReferences: false,
      project: {
        _id: project._id,
        name: 'ipctl-project-copy',
        components: project.components,
        created: project.created,
        createdBy: project.createdBy,
        description: project.description,
        folders: project.folders,
        lastUpdated: project.lastUpdated,
        lastUpdatedBy: project.lastUpdatedBy,
      },
    };
    expect((await ipctl('DELETE', `/automation-studio/projects/${id}`)).status).toBe(200);
    expect((await ipctl('GET', `/automation-studio/projects/${id}`)).status).toBe(404);
    // imported back under its own _id, as `ipctl import project` does on the platform it came from
    const imported = await ipctl('POST', '/automation-studio/projects/import', { body });
    expect(imported.status).toBe(200);
    expect(imported.body.data).toMatchObject({ name: 'ipctl-project-copy', _id: expect.any(String) });
    expect(await ipctl('GET', `/automation-studio/projects/${imported.body.data._id}`)).toMatchObject({
      status: 200,
      body: { data: { name: 'ipctl-project-copy' } },
    });
  });

  it('pages automations (data, metadata.total), gets and exports one by id, deletes its triggers, then it', async () => {
    const all = (await getAll(
      '/operations-manager/automations',
      (b) => b.data,
      (b) => b.metadata.total,
    )) as { _id: string; name: string }[];
    expect(all.map((a) => a._id)).toContain(automationId);
    expect(await ipctl('GET', `/operations-manager/automations/${automationId}`)).toMatchObject({
      status: 200,
      body: { data: { _id: automationId } },
    });
    expect(await ipctl('GET', `/operations-manager/automations/${automationId}/export`)).toMatchObject({
      status: 200,
      body: { data: { name: expect.any(String) } },
    });
    expect((await ipctl('DELETE', `/operations-manager/triggers/action/${automationId}`)).status).toBe(200);
    expect((await ipctl('DELETE', `/operations-manager/automations/${automationId}`)).status).toBe(200);
    expect((await ipctl('GET', `/operations-manager/automations/${automationId}`)).status).toBe(404);
  });

  it('gets a transformation by _id', async () => {
    const created = await platform.http('POST', '/transformations', {
      token: bearer,
      body: { name: 'ipctl-jst', incoming: [], outgoing: [], steps: [], functions: [] },
    });
    const id = (created.body as { _id: string })._id;
    expect(await ipctl('GET', `/transformations/${id}`)).toMatchObject({ status: 200, body: { _id: id, name: 'ipctl-jst' } });
  });
});

describe('ipctl command templates and analytic templates', () => {
  const command = {
    name: 'ipctl-ct',
    os: '',
    passRule: true,
    ignoreWarnings: false,
    commands: [{ command: 'show version', passRule: true, rules: [] }],
    tags: [],
  };
  const analytic = { name: 'ipctl-at', os: '', passRule: true, prepostCommands: [], tags: [] };

  it('lists, gets by name, exports (type templates), imports (type templates) and deletes a command template', async () => {
    const created = await platform.http('POST', '/mop/createTemplate', { token: bearer, body: { mop: command } });
    expect(created.status).toBe(200);
    const list = await ipctl('GET', '/mop/listTemplates');
    expect(list.status).toBe(200);
    expect((list.body as { name: string }[]).map((t) => t.name)).toContain('ipctl-ct');
    const one = await ipctl('GET', '/mop/listATemplate/ipctl-ct');
    expect(one).toMatchObject({ status: 200, body: [{ name: 'ipctl-ct' }] });
    expect(one.body).toHaveLength(1);
    const exported = await ipctl('POST', '/mop/export', { body: { options: { name: 'ipctl-ct' }, type: 'templates' } });
    expect(exported).toMatchObject({ status: 200, body: { name: 'ipctl-ct', commands: [{ command: 'show version' }] } });
    const imported = await ipctl('POST', '/mop/import', {
      body: { type: 'templates', template: { ...exported.body, name: 'ipctl-ct-copy' } },
    });
    expect(imported).toMatchObject({ status: 200, body: { name: 'ipctl-ct-copy' } });
    expect((await ipctl('GET', '/mop/listATemplate/ipctl-ct-copy')).body).toHaveLength(1);
    const deleted = await ipctl('POST', `/mop/deleteTemplate/${one.body[0]._id}`);
    expect(deleted.status).toBe(200);
    expect((await ipctl('GET', '/mop/listATemplate/ipctl-ct')).body).toEqual([]);
  });

  it('lists, gets by name, exports with type analytic beside options, and deletes an analytic template', async () => {
    const created = await platform.http('POST', '/mop/createAnalyticTemplate', { token: bearer, body: { template: analytic } });
    expect(created.status).toBe(200);
    const list = await ipctl('GET', '/mop/listAnalyticTemplates');
    expect((list.body as { name: string }[]).map((t) => t.name)).toContain('ipctl-at');
    const one = await ipctl('GET', '/mop/listAnAnalyticTemplate/ipctl-at');
    expect(one).toMatchObject({ status: 200, body: [{ name: 'ipctl-at' }] });
    const exported = await ipctl('POST', '/mop/export', { body: { options: { name: 'ipctl-at' }, type: 'analytic' } });
    expect(exported).toMatchObject({ status: 200, body: { _id: one.body[0]._id, name: 'ipctl-at', prepostCommands: [] } });
    // a command template of the same name is not what an analytic export answers
    await platform.http('POST', '/mop/createTemplate', { token: bearer, body: { mop: { ...command, name: 'ipctl-at' } } });
    expect((await ipctl('POST', '/mop/export', { body: { options: { name: 'ipctl-at' }, type: 'analytic' } })).body).not.toHaveProperty(
      'commands',
    );
    expect((await ipctl('POST', `/mop/deleteAnalyticTemplate/${one.body[0]._id}`)).status).toBe(200);
    expect((await ipctl('GET', '/mop/listAnAnalyticTemplate/ipctl-at')).body).toEqual([]);
  });
});
