import { getOperation, validateResponse } from '@nap/contracts';
import type { Envelope, ExportedProject, Project, ProjectComponentType } from '@nap/contracts';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { linearWorkflow } from './helpers';

/**
 * A project holds its components by id: a member renamed through its own route (every kind,
 * MOP command templates included, which mop keys by name) stays in the project under its new name,
 * and one deleted through its own route leaves the project working without it — get, export (and
 * import of that export again), change and delete of the project — with a note naming it.
 */

let platform: TestPlatform;
let admin: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  admin = await platform.login();
});

afterAll(async () => {
  await platform?.stop();
});

const upper = {
  name: 'upper-site',
  incoming: [{ $id: 'site', type: 'string' }],
  outgoing: [{ $id: 'label', type: 'string' }],
  steps: [
    { id: 1, type: 'method', library: 'String', method: 'toUpperCase', args: [null] },
    {
      id: 2,
      type: 'assign',
      from: { location: 'incoming', name: 'site', ptr: '' },
      to: { location: 'method', name: 1, ptr: '/args/0/value' },
    },
    { id: 3, type: 'assign', from: { location: 'method', name: 1, ptr: '/return' }, to: { location: 'outgoing', name: 'label', ptr: '' } },
  ],
  functions: [],
};

/** A project with one component of every kind, each in its folder. */
function project(id: string): ExportedProject {
  const documents: [ProjectComponentType, Record<string, unknown>][] = [
    ['workflow', linearWorkflow('wf')],
    ['template', { name: 'render', type: 'jinja2', template: 'hostname {{ name }}', data: '{}', group: 'g', command: '', description: '' }],
    ['transformation', upper],
    ['jsonForm', { name: 'form', schema: { type: 'object' } }],
    [
      'mopCommandTemplate',
      { name: 'checks', os: 'cisco-ios', passRule: true, commands: [{ command: 'show version', passRule: true, rules: [] }] },
    ],
  ];
  return {
    _id: id,
    name: `members ${id}`,
    description: 'members changed on their own',
    folders: [
      { nodeType: 'folder', name: 'all', children: documents.map((_, iid) => ({ nodeType: 'component', iid })) },
      { nodeType: 'component', iid: 0 },
    ],
    components: documents.map(([type, document], iid) => ({ iid, type, folder: '/all', document })),
  };
}

async function imported(id: string): Promise<Project> {
  const res = await platform.http('POST', '/automation-studio/projects/import', { token: admin, body: { project: project(id) } });
  if (res.status !== 200) throw new Error(`import ${id}: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as Envelope<Project>).data;
}

function componentOf(p: Pick<Project, 'components'>, type: ProjectComponentType) {
  const c = p.components.find((x) => x.type === type);
  if (c === undefined) throw new Error(`no ${type} component`);
  return c;
}

/** Without the members the owning service sets itself. */
function content(doc: Record<string, unknown>): Record<string, unknown> {
  const out = { ...doc };
  for (const k of ['_id', 'created', 'createdBy', 'created_by', 'lastUpdated', 'lastUpdatedBy', 'last_updated', 'last_updated_by'])
    delete out[k];
  return out;
}

/** The document of component `c` through its own service's read route, or null when it is gone. */
async function ownRead(c: Project['components'][number]): Promise<Record<string, unknown> | null> {
  if (c.type === 'mopCommandTemplate') {
    const all = (await platform.http('GET', '/mop/listTemplates', { token: admin })).body as Record<string, unknown>[];
    return all.find((t) => t._id === c.reference) ?? null;
  }
  const path = {
    workflow: `/automation-studio/automations/${c.reference}`,
    template: `/automation-studio/templates/${c.reference}`,
    transformation: `/transformations/${c.reference}`,
    jsonForm: `/formbuilder/forms/${c.reference}`,
  }[c.type];
  const res = await platform.http('GET', path, { token: admin });
  if (res.status === 404) return null;
  expect(res.status).toBe(200);
  return res.body as Record<string, unknown>;
}

/** Renames component `c` of project `p` to `name` through the route its own service offers. */
async function rename(c: Project['components'][number], name: string): Promise<{ status: number; body: unknown }> {
  const current = await ownRead(c);
  if (current === null) throw new Error(`${c.type} ${c.reference} is gone`);
  const doc = { ...content(current), name };
  switch (c.type) {
    case 'workflow':
      return platform.http('PUT', `/automation-studio/automations/${c.reference}`, { token: admin, body: { update: doc } });
    case 'template':
      return platform.http('PUT', `/automation-studio/templates/${c.reference}`, { token: admin, body: { update: doc } });
    case 'transformation':
      return platform.http('PUT', `/transformations/${c.reference}`, { token: admin, body: doc });
    case 'jsonForm':
      return platform.http('PUT', `/formbuilder/forms/${c.reference}`, { token: admin, body: { form: doc } });
    case 'mopCommandTemplate':
      return platform.http('PUT', `/mop/updateTemplate/${encodeURIComponent(c.storedName)}`, { token: admin, body: { mop: doc } });
  }
}

/** The status the delete route of each type answers: 204 for a transformation (as ipctl checks it), 200 otherwise. */
function deletedStatus(c: Project['components'][number]): number {
  return c.type === 'transformation' ? 204 : 200;
}

/** Deletes component `c` through the route its own service offers. */
function remove(c: Project['components'][number]): Promise<{ status: number; body: unknown }> {
  switch (c.type) {
    case 'workflow':
      return platform.http('DELETE', `/automation-studio/automations/${c.reference}`, { token: admin });
    case 'template':
      return platform.http('DELETE', `/automation-studio/templates/${c.reference}`, { token: admin });
    case 'transformation':
      return platform.http('DELETE', `/transformations/${c.reference}`, { token: admin });
    case 'jsonForm':
      return platform.http('DELETE', `/formbuilder/forms/${c.reference}`, { token: admin });
    case 'mopCommandTemplate':
      return platform.http('POST', `/mop/deleteTemplate/${c.reference}`, { token: admin });
  }
}

const KINDS: [ProjectComponentType, string][] = [
  ['workflow', '01'],
  ['template', '02'],
  ['transformation', '03'],
  ['jsonForm', '04'],
  ['mopCommandTemplate', '05'],
];

describe('a project member renamed through its own route', () => {
  it.each(KINDS)('%s: stays in the project under its new name; get, export, import again, change and delete follow it', async (type, n) => {
    const id = `dddddddddddddddddddddd${n}`;
    const before = await imported(id);
    const member = componentOf(before, type);
    const renamed = await rename(member, `@${id}: renamed`);
    expect({ status: renamed.status, body: renamed.status === 200 ? {} : renamed.body }).toEqual({ status: 200, body: {} });

    const got = await platform.http('GET', `/automation-studio/projects/${id}`, { token: admin });
    expect(got.status).toBe(200);
    expect(validateResponse(getOperation('studio.getProject'), got.body)).toEqual([]);
    const project = got.body as Envelope<Project>;
    expect(project.metadata).toEqual({});
    expect(project.data.components).toHaveLength(5);
    expect(componentOf(project.data, type)).toEqual({ ...member, name: 'renamed', storedName: `@${id}: renamed` });

    const exported = await platform.http('GET', `/automation-studio/projects/${id}/export`, { token: admin });
    expect(exported.status).toBe(200);
    expect(validateResponse(getOperation('studio.exportProject'), exported.body)).toEqual([]);
    const out = (exported.body as { data: ExportedProject }).data;
    expect(out).not.toHaveProperty('componentsGone');
    expect(out.components.map((c) => c.iid)).toEqual([0, 1, 2, 3, 4]);
    const component = out.components.find((c) => c.type === type);
    expect(component?.document.name).toBe('renamed');
    // mop keys its templates by name: the reference an export gives them is the name now
    expect(component?.reference).toBe(type === 'mopCommandTemplate' ? `@${id}: renamed` : member.reference);

    const changed = await platform.http('PATCH', `/automation-studio/projects/${id}`, { token: admin, body: { description: 'changed' } });
    expect(changed.status).toBe(200);
    expect(validateResponse(getOperation('studio.updateProject'), changed.body)).toEqual([]);
    expect(componentOf((changed.body as Envelope<Project>).data, type).name).toBe('renamed');

    const deleted = await platform.http('DELETE', `/automation-studio/projects/${id}`, { token: admin });
    expect(deleted).toMatchObject({ status: 200, body: { data: { deleted: 5 } } });
    for (const c of before.components) expect(await ownRead(c)).toBeNull();
    expect((await platform.http('GET', `/automation-studio/projects/${id}`, { token: admin })).status).toBe(404);

    // the export imports again, with the member under its new name
    const again = await platform.http('POST', '/automation-studio/projects/import', { token: admin, body: { project: out } });
    expect(again.status).toBe(200);
    expect(componentOf((again.body as Envelope<Project>).data, type)).toMatchObject({ name: 'renamed', storedName: `@${id}: renamed` });
    expect((await platform.http('DELETE', `/automation-studio/projects/${id}`, { token: admin })).status).toBe(200);
  });

  it('mop: a template renamed out of the project prefix by id (POST /mop/updateTemplate/:mopID) stays the project’s too', async () => {
    const id = 'dddddddddddddddddddddd06';
    const before = await imported(id);
    const member = componentOf(before, 'mopCommandTemplate');
    const current = await ownRead(member);
    const res = await platform.http('POST', `/mop/updateTemplate/${member.reference}`, {
      token: admin,
      body: { mop: { ...content(current ?? {}), name: 'checks outside' } },
    });
    expect(res.status).toBe(200);
    const got = (await platform.http('GET', `/automation-studio/projects/${id}`, { token: admin })).body as Envelope<Project>;
    expect(componentOf(got.data, 'mopCommandTemplate')).toMatchObject({ name: 'checks outside', storedName: 'checks outside' });
    const out = (
      (await platform.http('GET', `/automation-studio/projects/${id}/export`, { token: admin })).body as { data: ExportedProject }
    ).data;
    expect(out.components.find((c) => c.type === 'mopCommandTemplate')).toMatchObject({
      reference: 'checks outside',
      document: { _id: member.reference, name: 'checks outside', commands: [{ command: 'show version' }] },
    });
    const deleted = await platform.http('DELETE', `/automation-studio/projects/${id}`, { token: admin });
    expect(deleted).toMatchObject({ status: 200, body: { data: { deleted: 5 } } });
    expect(await ownRead(member)).toBeNull();
  });
});

describe('a project member deleted through its own route', () => {
  it.each(KINDS)('%s: the project goes on without it, and says so', async (type, n) => {
    const id = `ffffffffffffffffffffff${n}`;
    const before = await imported(id);
    const member = componentOf(before, type);
    expect((await remove(member)).status).toBe(deletedStatus(member));
    const note = `Component ${member.iid} (${type} "${member.name}") was deleted since the project was imported; the project goes on without it`;
    const gone = [{ iid: member.iid, type, name: member.name }];
    const rest = before.components.filter((c) => c.iid !== member.iid);

    const got = await platform.http('GET', `/automation-studio/projects/${id}`, { token: admin });
    expect(got.status).toBe(200);
    expect(validateResponse(getOperation('studio.getProject'), got.body)).toEqual([]);
    expect(got.body).toMatchObject({ data: { components: rest }, metadata: { componentsGone: gone, note } });

    const list = await platform.http('GET', `/automation-studio/projects?equals[_id]=${id}`, { token: admin });
    expect((list.body as { data: Project[] }).data.map((p) => p.components.map((c) => c.iid))).toEqual([rest.map((c) => c.iid)]);

    const exported = await platform.http('GET', `/automation-studio/projects/${id}/export`, { token: admin });
    expect(exported.status).toBe(200);
    expect(validateResponse(getOperation('studio.exportProject'), exported.body)).toEqual([]);
    const out = (exported.body as { data: ExportedProject & { componentsGone: unknown; note: string } }).data;
    expect(out.components.map((c) => c.iid)).toEqual(rest.map((c) => c.iid));
    expect(out).toMatchObject({ componentsGone: gone, note });
    // its folder nodes go with it
    const left = rest.map((c) => ({ nodeType: 'component', iid: c.iid }));
    expect(out.folders).toEqual([
      { nodeType: 'folder', name: 'all', children: left },
      ...(member.iid === 0 ? [] : [{ nodeType: 'component', iid: 0 }]),
    ]);
    const changed = await platform.http('PATCH', `/automation-studio/projects/${id}`, { token: admin, body: { name: `changed ${id}` } });
    expect(changed.status).toBe(200);
    expect(validateResponse(getOperation('studio.updateProject'), changed.body)).toEqual([]);
    expect(changed.body).toMatchObject({ data: { name: `changed ${id}`, components: rest }, metadata: { componentsGone: gone, note } });

    const deleted = await platform.http('DELETE', `/automation-studio/projects/${id}`, { token: admin });
    expect(deleted).toMatchObject({ status: 200, body: { data: { deleted: 4 } } });
    for (const c of rest) expect(await ownRead(c)).toBeNull();
    expect((await platform.http('GET', `/automation-studio/projects/${id}`, { token: admin })).status).toBe(404);

    // what was left imports again
    const again = await platform.http('POST', '/automation-studio/projects/import', { token: admin, body: { project: out } });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ data: { components: rest.map((c) => ({ iid: c.iid, type: c.type, name: c.name })) } });
    expect((await platform.http('DELETE', `/automation-studio/projects/${id}`, { token: admin })).status).toBe(200);
  });

  it('several gone at once are named together, and an export of nothing left still imports', async () => {
    const id = 'ffffffffffffffffffffff07';
    const before = await imported(id);
    for (const c of before.components) expect((await remove(c)).status).toBe(deletedStatus(c));
    const out = (
      (await platform.http('GET', `/automation-studio/projects/${id}/export`, { token: admin })).body as {
        data: ExportedProject & { note: string };
      }
    ).data;
    expect(out.components).toEqual([]);
    expect(out.folders).toEqual([{ nodeType: 'folder', name: 'all', children: [] }]);
    expect(out.note).toBe(
      'Components 0 (workflow "wf"), 1 (template "render"), 2 (transformation "upper-site"), 3 (jsonForm "form"), 4 (mopCommandTemplate "checks") were deleted since the project was imported; the project goes on without them',
    );
    const deleted = await platform.http('DELETE', `/automation-studio/projects/${id}`, { token: admin });
    expect(deleted).toMatchObject({ status: 200, body: { data: { deleted: 0 } } });
    const again = await platform.http('POST', '/automation-studio/projects/import', { token: admin, body: { project: out } });
    expect(again).toMatchObject({ status: 200, body: { data: { _id: id, components: [] } } });
  });
});

describe('a project with many MOP command templates', () => {
  it('follows renames and deletes among them too (found in one read of the list)', async () => {
    const id = 'dddddddddddddddddddddd07';
    const many: ExportedProject = {
      _id: id,
      name: `many ${id}`,
      folders: [],
      components: Array.from({ length: 10 }, (_, iid) => ({
        iid,
        type: 'mopCommandTemplate' as const,
        folder: '/',
        document: { name: `checks ${iid}`, commands: [{ command: `show ${iid}`, passRule: true, rules: [] }] },
      })),
    };
    const res = await platform.http('POST', '/automation-studio/projects/import', { token: admin, body: { project: many } });
    expect(res.status).toBe(200);
    const before = (res.body as Envelope<Project>).data;
    const [first, second] = before.components;
    if (first === undefined || second === undefined) throw new Error('components missing');
    expect((await rename(first, `@${id}: first renamed`)).status).toBe(200);
    expect((await remove(second)).status).toBe(deletedStatus(second));

    const got = (await platform.http('GET', `/automation-studio/projects/${id}`, { token: admin })).body as Envelope<Project>;
    expect(got.data.components.map((c) => c.name)).toEqual(['first renamed', ...before.components.slice(2).map((c) => c.name)]);
    expect(got.metadata).toMatchObject({ componentsGone: [{ iid: 1, type: 'mopCommandTemplate', name: 'checks 1' }] });
    const out = (
      (await platform.http('GET', `/automation-studio/projects/${id}/export`, { token: admin })).body as { data: ExportedProject }
    ).data;
    expect(out.components.map((c) => c.document.name)).toEqual(got.data.components.map((c) => c.name));
    const deleted = await platform.http('DELETE', `/automation-studio/projects/${id}`, { token: admin });
    expect(deleted).toMatchObject({ status: 200, body: { data: { deleted: 9 } } });
    expect((await platform.http('GET', '/mop/listTemplates', { token: admin })).body).not.toContainEqual(
      expect.objectContaining({ name: expect.stringContaining(id) }),
    );
  });
});
