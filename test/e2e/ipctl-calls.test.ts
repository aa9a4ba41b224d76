import { TEST_ADMIN, startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { createAutomation, greetWorkflow } from '../support/automation';
import { ipctlClient, ipctlGetAll, ipctlToken } from '../support/ipctl';
import type { Ipctl, Loose } from '../support/ipctl';

/**
 * The calls Itential's command line ipctl (github.com/itential/ipctl, pkg/services) makes, written the
 * way it writes them: every request carries `Content-Type: application/json` and `Accept:
 * application/json` (a bodyless one too, with Content-Length 0), the paging of its GetAll loops
 * (`limit=100&skip=n` until the items read reach the total), and each answer checked the way ipctl
 * checks it: the exact status it expects (200 for every call, creations and imports included, 204 for the
 * delete of a transformation, 201 for the import of an analytic template, which ipctl posts without naming
 * a status) and the members it reads; a Go slice it indexes (ops[0], imported[0]) must not be empty. A profile with client_id/client_secret takes an OAuth token
 * (golang.org/x/oauth2 clientcredentials, credentials in the form) and sends it as Bearer; one with a
 * username and password logs in with POST /login and keeps the cookie.
 */

let platform: TestPlatform;
let bearer: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  bearer = await ipctlToken(platform.url);
}, 60_000);

afterAll(async () => {
  await platform.stop();
});

/** One request as ipctl's client sends it, with the Bearer token of an OAuth profile. */
const ipctl: Ipctl = (method, path, options) => ipctlClient(platform.url, () => bearer)(method, path, options);

/** ipctl's GetAll loop over `path`. */
const getAll = (path: string, items: (body: Loose) => unknown[], total: (body: Loose) => number) => ipctlGetAll(ipctl, path, items, total);

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
    // ipctl reads the exported project from data; its import body is Project.Import(): the project's own members
    // (the empty ones too: backgroundColor, iid, thumbnail), reference options, no conflict mode
    const project = exported.body.data as Record<string, unknown>;
    expect(project).toMatchObject({ _id: id, name: 'ipctl-project', components: [] });
    const body = {
      skipReferenceValidation: false,
      assignNewReferences: false,
      project: {
        _id: project._id,
        name: 'ipctl-project-copy',
        backgroundColor: '',
        components: project.components,
        created: project.created,
        createdBy: project.createdBy,
        description: project.description,
        folders: project.folders,
        iid: 0,
        lastUpdated: project.lastUpdated,
        lastUpdatedBy: project.lastUpdatedBy,
        thumbnail: '',
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

describe('ipctl transformations', () => {
  // NewTransformation(name, description): every list empty, view col 3 row 5, no tags
  const jst = (name: string) => ({
    name,
    description: 'from ipctl',
    functions: [],
    incoming: [],
    outgoing: [],
    steps: [],
    view: { col: 3, row: 5 },
    tags: [],
  });

  it('creates (200, the document), pages (results, total) to the end, imports one document (200, reads _id) and deletes (204)', async () => {
    const created = await ipctl('POST', '/transformations', { body: jst('ipctl-t-created') });
    expect(created).toMatchObject({ status: 200, body: { _id: expect.any(String), name: 'ipctl-t-created' } });
    for (let i = 0; i < 3; i++) expect((await ipctl('POST', '/transformations', { body: jst(`ipctl-t-${i}`) })).status).toBe(200);
    const all = (await getAll(
      '/transformations',
      (b) => b.results,
      (b) => b.total,
    )) as { _id: string; name: string }[];
    expect(all.map((t) => t.name)).toEqual(expect.arrayContaining(['ipctl-t-created', 'ipctl-t-0', 'ipctl-t-1', 'ipctl-t-2']));
    expect(new Set(all.map((t) => t._id)).size).toBe(all.length);

    // Export is Get; Import posts that document itself, its _id and stamps included, and reads the stored one
    const exported = await ipctl('GET', `/transformations/${created.body._id}`);
    expect((await ipctl('DELETE', `/transformations/${created.body._id}`)).status).toBe(204);
    expect((await ipctl('GET', `/transformations/${created.body._id}`)).status).toBe(404);
    const { createdBy: _cb, lastUpdatedBy: _lb, ...document } = exported.body as Record<string, unknown>;
    const imported = await ipctl('POST', '/transformations/import', { body: { ...document, version: '' } });
    expect(imported).toMatchObject({ status: 200, body: { _id: created.body._id, name: 'ipctl-t-created' } });
    expect(await ipctl('GET', `/transformations/${imported.body._id}`)).toMatchObject({ status: 200, body: { name: 'ipctl-t-created' } });
    // a second import of the same document is refused, not stored twice
    expect((await ipctl('POST', '/transformations/import', { body: document })).status).toBe(409);

    // Clear: GetAll, then Delete each (204)
    for (const t of (await getAll(
      '/transformations',
      (b) => b.results,
      (b) => b.total,
    )) as { _id: string }[]) {
      expect((await ipctl('DELETE', `/transformations/${t._id}`)).status).toBe(204);
    }
    expect((await ipctl('GET', '/transformations', { query: { limit: '100', skip: '0' } })).body).toMatchObject({ results: [], total: 0 });
  });

  it('refuses an import body that is neither a document nor { transformations: [...] }, naming the member', async () => {
    const res = await ipctl('POST', '/transformations/import', { body: { transformations: 'x' } });
    expect(res).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
    expect(JSON.stringify(res.body)).toContain('body.transformations');
    expect((await ipctl('POST', '/transformations/import', { body: { description: 'no name' } })).status).toBe(400);
  });
});

describe('ipctl workflows through automation-studio and workflow_builder', () => {
  // NewWorkflow(name): workflow_start and workflow_end, no transition between them
  const newWorkflow = (name: string) => {
    const io = {
      properties: { _id: { pattern: '^[0-9a-f]{24}$', type: 'string' }, initiator: { type: 'string' } },
      required: [],
      type: 'object',
    };
    return {
      name,
      type: 'automation',
      inputSchema: io,
      outputSchema: io,
      canvasVersion: 3,
      font_size: 12,
      groups: [],
      tags: [],
      preAutomationTime: 0,
      sla: 0,
      transitions: { workflow_start: {}, workflow_end: {} },
      tasks: {
        workflow_start: { groups: [], name: 'workflow_start', nodelocation: { x: 0, y: -500 }, x: 0, y: 0.5 },
        workflow_end: { groups: [], name: 'workflow_end', nodelocation: { x: 0, y: 500 }, x: 1, y: 0.5 },
      },
    };
  };

  it('creates (200, reads created), exports by name and by _id, updates, and deletes by name', async () => {
    const created = await ipctl('POST', '/automation-studio/automations', { body: { automation: newWorkflow('ipctl-new') } });
    expect(created).toMatchObject({ status: 200, body: { created: { name: 'ipctl-new', _id: expect.any(String) } } });
    const id = created.body.created._id as string;

    const byName = await ipctl('POST', '/workflow_builder/export', { body: { options: { name: 'ipctl-new' } } });
    expect(byName).toMatchObject({ status: 200, body: { _id: id, name: 'ipctl-new', tasks: { workflow_start: expect.any(Object) } } });
    const byId = await ipctl('POST', '/workflow_builder/export', { body: { options: { _id: id } } });
    expect(byId).toMatchObject({ status: 200, body: { _id: id, name: 'ipctl-new' } });
    expect((await ipctl('POST', '/workflow_builder/export', { body: { options: { name: 'ipctl-none' } } })).status).toBe(404);

    const update = { ...byName.body, description: 'from ipctl' };
    expect((await ipctl('PUT', `/automation-studio/automations/${id}`, { body: { update } })).status).toBe(200);
    expect((await ipctl('GET', '/automation-studio/workflows', { query: { 'equals[name]': 'ipctl-new' } })).body).toMatchObject({
      total: 1,
      items: [{ description: 'from ipctl' }],
    });

    expect((await ipctl('DELETE', '/workflow_builder/workflows/delete/ipctl-new')).status).toBe(200);
    expect((await ipctl('GET', '/automation-studio/workflows', { query: { 'equals[name]': 'ipctl-new' } })).body.total).toBe(0);
    expect((await ipctl('DELETE', '/workflow_builder/workflows/delete/ipctl-new')).status).toBe(404);
  });
});

describe('ipctl studio templates', () => {
  it('creates (200, reads created), gets, exports, imports (reads imported[0].original) and deletes a template', async () => {
    const created = await ipctl('POST', '/automation-studio/templates', {
      body: { template: { name: 'ipctl-tpl', group: 'ipctl', type: 'textfsm', description: 'from ipctl' } },
    });
    expect(created).toMatchObject({ status: 200, body: { created: { name: 'ipctl-tpl', _id: expect.any(String) } } });
    const id = created.body.created._id as string;
    expect(await ipctl('GET', `/automation-studio/templates/${id}`)).toMatchObject({ status: 200, body: { _id: id, name: 'ipctl-tpl' } });
    const exported = await ipctl('GET', `/automation-studio/templates/${id}/export`);
    expect(exported).toMatchObject({ status: 200, body: { _id: id, name: 'ipctl-tpl', group: 'ipctl', type: 'textfsm' } });
    const all = (await getAll(
      '/automation-studio/templates',
      (b) => b.items,
      (b) => b.total,
    )) as { name: string }[];
    expect(all.map((t) => t.name)).toContain('ipctl-tpl');

    expect((await ipctl('DELETE', `/automation-studio/templates/${id}`)).status).toBe(200);
    // the Template struct as ipctl marshals it: empty strings and a null createdBy where it has nothing
    const { lastUpdatedBy: _lb, namespace: _ns, ...template } = exported.body as Record<string, unknown>;
    const body = { templates: [{ command: '', data: '', template: '', ...template, createdBy: null, tags: [] }] };
    const imported = await ipctl('POST', '/automation-studio/templates/import', { body });
    expect(imported).toMatchObject({ status: 200, body: { imported: [{ success: true, original: { name: 'ipctl-tpl' } }] } });
    expect(imported.body.imported).toHaveLength(1);
  });
});

/** The members of ipctl's JsonForm struct: what it marshals of a form it read. */
const JSON_FORM_MEMBERS = [
  'id',
  'name',
  'description',
  'struct',
  'schema',
  'uiSchema',
  'bindingSchema',
  'validationSchema',
  'created',
  'createdBy',
  'lastUpdated',
  'lastUpdatedBy',
  'version',
];

function pick(doc: Record<string, unknown>, members: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(members.filter((m) => m in doc).map((m) => [m, doc[m]]));
}

describe('ipctl JSON forms', () => {
  // NewJsonForm(name, description), marshalled with every member of JsonForm, the empty ones too
  const jsonForm = (name: string) => ({
    id: '',
    name,
    description: 'from ipctl',
    struct: { description: '', items: [], type: 'object' },
    schema: { description: 'from ipctl', properties: {}, required: [], title: name, type: 'object' },
    uiSchema: {},
    bindingSchema: {},
    validationSchema: {},
    created: '',
    createdBy: '',
    lastUpdated: '',
    lastUpdatedBy: '',
    version: '',
  });

  it('creates (200, status and doc), lists (a bare array), gets by id, imports (reads imported[0].created._id) and deletes by ids', async () => {
    const created = await ipctl('POST', '/json-forms/forms', { body: jsonForm('ipctl-form') });
    expect(created).toMatchObject({ status: 200, body: { status: 'success', doc: { id: expect.any(String), name: 'ipctl-form' } } });
    const id = created.body.doc.id as string;

    const all = await ipctl('GET', '/json-forms/forms');
    expect(all.status).toBe(200);
    expect(Array.isArray(all.body)).toBe(true);
    expect((all.body as { id: string; name: string }[]).find((f) => f.name === 'ipctl-form')).toMatchObject({ id });
    const one = await ipctl('GET', `/json-forms/forms/${id}`);
    expect(one).toMatchObject({ status: 200, body: { id, name: 'ipctl-form', schema: { title: 'ipctl-form' } } });
    expect((await ipctl('GET', '/json-forms/forms/no-such-form')).status).toBe(404);

    // Import: the form as ipctl marshals one it read (its JsonForm members, no _id; its id another platform's), under
    // another name; then Get by the created _id
    const imported = await ipctl('POST', '/json-forms/import/forms', {
      body: {
        forms: [
          { ...jsonForm('ipctl-form-copy'), ...pick(one.body, JSON_FORM_MEMBERS), id: '6795a570a209bf3192120bfb', name: 'ipctl-form-copy' },
        ],
      },
    });
    expect(imported).toMatchObject({
      status: 200,
      body: { status: 'success', imported: [{ success: true, created: { _id: expect.any(String) } }] },
    });
    const copy = imported.body.imported[0].created._id as string;
    expect(await ipctl('GET', `/json-forms/forms/${copy}`)).toMatchObject({ status: 200, body: { id: copy, name: 'ipctl-form-copy' } });

    // Clear: GetAll, then one Delete with every id
    const ids = ((await ipctl('GET', '/json-forms/forms')).body as { id: string }[]).map((f) => f.id);
    expect(ids).toEqual(expect.arrayContaining([id, copy]));
    expect(await ipctl('DELETE', '/json-forms/forms', { body: { ids } })).toMatchObject({ status: 200, body: { n: ids.length } });
    expect((await ipctl('GET', '/json-forms/forms')).body).toEqual([]);
    expect(await ipctl('DELETE', '/json-forms/forms', { body: { ids: [id] } })).toMatchObject({
      status: 404,
      body: { code: 'FORM_NOT_FOUND' },
    });
  });
});

describe('ipctl creates command and analytic templates', () => {
  it('reads ops[0] of a command template creation', async () => {
    // NewCommandTemplate(name): _id the name, one command with one rule
    const mop = {
      _id: 'ipctl-new-ct',
      name: 'ipctl-new-ct',
      os: '',
      passRule: false,
      ignoreWarnings: false,
      commands: [{ command: '', passRule: true, rules: [{ rule: '', eval: 'contains', severity: 'error' }] }],
      tags: [],
      created: 0,
      createdBy: '',
      lastUpdated: 0,
      lastUpdatedBy: '',
      namespace: null,
    };
    const created = await ipctl('POST', '/mop/createTemplate', { body: { mop } });
    expect(created).toMatchObject({ status: 200, body: { ops: [{ name: 'ipctl-new-ct', _id: expect.any(String) }] } });
    expect((await ipctl('POST', `/mop/deleteTemplate/${created.body.ops[0]._id}`)).status).toBe(200);
  });

  it('reads ops[0] of an analytic template creation, and imports one answered 201', async () => {
    // NewAnalyticTemplate(name)
    const template = {
      _id: 'ipctl-new-at',
      name: 'ipctl-new-at',
      tags: [],
      passRule: false,
      prepostCommands: [
        {
          preRawCommand: '',
          postRawCommand: '',
          passRule: true,
          rules: [{ type: 'regex', preRegex: '', postRegex: '', evaulator: '=', severity: 'error' }],
        },
      ],
      created: 0,
      createdBy: '',
      lastUpdated: 0,
      lastUpdatedBy: '',
    };
    const created = await ipctl('POST', '/mop/createAnalyticTemplate', { body: { template } });
    expect(created).toMatchObject({ status: 200, body: { ops: [{ name: 'ipctl-new-at', _id: expect.any(String) }] } });
    const exported = await ipctl('POST', '/mop/export', { body: { options: { name: 'ipctl-new-at' }, type: 'analytic' } });
    const imported = await ipctl('POST', '/mop/import', {
      body: { type: 'analytic', template: { ...exported.body, name: 'ipctl-new-at-copy' } },
    });
    expect(imported).toMatchObject({ status: 201, body: { name: 'ipctl-new-at-copy' } });
    expect((await ipctl('GET', '/mop/listAnAnalyticTemplate/ipctl-new-at-copy')).body).toHaveLength(1);
  });
});
