import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getOperation, serviceDatabase, validateResponse } from '@nap/contracts';
import type { Envelope, Project, ProjectComponentType } from '@nap/contracts';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { createStore } from '@nap/store';
import { eventually } from '@nap/testing';
import { linearWorkflow, startWithInsiderAndOutsider } from './helpers';
import type { GroupUser } from './helpers';

/**
 * `POST /automation-studio/projects`, `POST …/projects/:id/components/add` and
 * `DELETE …/projects/:id/components/:componentId`: documents that exist become project members
 * (moved in, copied, duplicated, or taken in as made for the project) and leave again (moved out or
 * deleted), through their owning services, all or nothing, within the caller's groups, audited.
 */

let platform: TestPlatform;
let admin: string;
/** engineering, in the group the guarded documents are shared with */
let insider: GroupUser;
/** engineering, in none of those groups */
let outsider: GroupUser;

beforeAll(async () => {
  ({ platform, admin, insider, outsider } = await startWithInsiderAndOutsider('components'));
});

afterAll(async () => {
  await platform?.stop();
});

type Body = Record<string, unknown>;

/** Where each kind of document is created, read and named. */
const ROUTES: Record<ProjectComponentType, { create: string; wrap: (doc: Body) => Body; read: (id: string, name: string) => string }> = {
  workflow: {
    create: '/automation-studio/automations',
    wrap: (doc) => ({ automation: doc }),
    read: (id) => `/automation-studio/automations/${id}`,
  },
  transformation: { create: '/transformations', wrap: (doc) => doc, read: (id) => `/transformations/${id}` },
  template: {
    create: '/automation-studio/templates',
    wrap: (doc) => ({ template: doc }),
    read: (id) => `/automation-studio/templates/${id}`,
  },
  jsonForm: { create: '/formbuilder/forms', wrap: (doc) => ({ form: doc }), read: (id) => `/formbuilder/forms/${id}` },
  mopCommandTemplate: {
    create: '/mop/createTemplate',
    wrap: (doc) => ({ mop: doc }),
    read: (_id, name) => `/mop/listATemplate/${encodeURIComponent(name)}`,
  },
};

/** A valid document of `type` named `name`. */
function documentOf(type: ProjectComponentType, name: string, extra: Body = {}): Body {
  switch (type) {
    case 'workflow':
      return linearWorkflow(name, extra);
    case 'transformation':
      return { name, incoming: [], outgoing: [], steps: [], functions: [], ...extra };
    case 'template':
      return { name, type: 'jinja2', template: 'hostname {{ name }}', data: '{}', group: 'g', command: '', description: '', ...extra };
    case 'jsonForm':
      return { name, schema: { type: 'object' }, ...extra };
    case 'mopCommandTemplate':
      return { name, os: 'cisco-ios', passRule: true, commands: [{ command: 'show version', passRule: true, rules: [] }], ...extra };
  }
}

/** Creates a document through its own route and answers its id. */
async function created(type: ProjectComponentType, name: string, extra: Body = {}, token = admin): Promise<string> {
  const res = await platform.http('POST', ROUTES[type].create, { token, body: ROUTES[type].wrap(documentOf(type, name, extra)) });
  if (res.status >= 300) throw new Error(`create ${type} ${name}: ${res.status} ${JSON.stringify(res.body)}`);
  const body = res.body as { _id?: string; data?: { _id?: string } };
  const id = body.data?._id ?? body._id;
  if (id === undefined) throw new Error(`create ${type} ${name}: no id in ${JSON.stringify(res.body)}`);
  return id;
}

/** The document's name now (undefined when it is gone). */
async function nameOf(type: ProjectComponentType, id: string, name: string): Promise<string | undefined> {
  const res = await platform.http('GET', ROUTES[type].read(id, name), { token: admin });
  if (res.status === 404) return undefined;
  const body = res.body as Body & { data?: unknown };
  // a template's own data member is a string: only an envelope's data is the document
  const enveloped = typeof body.data === 'object' && body.data !== null ? (body.data as Body) : undefined;
  const doc = Array.isArray(body) ? (body[0] as Body | undefined) : (enveloped ?? body);
  if (doc === undefined) return undefined;
  if (doc._id !== id) throw new Error(`${type} ${name} has id ${String(doc._id)}, not ${id}`);
  return doc.name as string;
}

async function newProject(name: string, token = admin): Promise<Project> {
  const res = await platform.http('POST', '/automation-studio/projects', { token, body: { name, components: [] } });
  expect(res.status).toBe(200);
  return (res.body as Envelope<Project>).data;
}

function add(projectId: string, body: Body, token = admin) {
  return platform.http('POST', `/automation-studio/projects/${projectId}/components/add`, { token, body });
}

function remove(projectId: string, componentId: string | number, body?: Body, token = admin) {
  return platform.http('DELETE', `/automation-studio/projects/${projectId}/components/${componentId}`, {
    token,
    ...(body !== undefined ? { body } : {}),
  });
}

async function stored(projectId: string, token = admin): Promise<Envelope<Project>> {
  return (await platform.http('GET', `/automation-studio/projects/${projectId}`, { token })).body as Envelope<Project>;
}

const TYPES: ProjectComponentType[] = ['workflow', 'transformation', 'template', 'jsonForm', 'mopCommandTemplate'];

describe('creating a project', () => {
  it('answers 200 with the empty project, as the Python SDK and ipctl send it, and refuses a name taken or not printable', async () => {
    const res = await platform.http('POST', '/automation-studio/projects', { token: admin, body: { name: 'fresh', components: [] } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ message: 'Created project "fresh"', data: { name: 'fresh', components: [], folders: [] } });
    expect(validateResponse(getOperation('studio.createProject'), res.body)).toEqual([]);
    const id = (res.body as Envelope<Project>).data._id;
    expect(id).toMatch(/^[0-9a-f]{24}$/);
    expect(JSON.stringify(res.body)).not.toContain('changing');
    expect((await stored(id)).data.name).toBe('fresh');

    const again = await platform.http('POST', '/automation-studio/projects', { token: admin, body: { name: 'fresh' } });
    expect(again).toMatchObject({ status: 409, body: { code: 'PROJECT_ALREADY_EXISTS' } });
    const control = await platform.http('POST', '/automation-studio/projects', { token: admin, body: { name: 'bad\u001bname' } });
    expect(control).toMatchObject({
      status: 400,
      body: { code: 'VALIDATION_FAILED', details: [expect.objectContaining({ member: 'body.name' })] },
    });
  });

  it('copies the documents its components name into it and leaves the originals, or creates nothing when one is refused', async () => {
    const wf = await created('workflow', 'create-copied-wf');
    const res = await platform.http('POST', '/automation-studio/projects', {
      token: admin,
      body: { name: 'with copies', components: [{ type: 'workflow', reference: wf, folder: '/day one' }] },
    });
    expect(res.status).toBe(200);
    const project = (res.body as Envelope<Project>).data;
    expect(project.components).toEqual([
      expect.objectContaining({ iid: 0, type: 'workflow', name: 'create-copied-wf', storedName: `@${project._id}: create-copied-wf` }),
    ]);
    expect(project.components[0]?.reference).not.toBe(wf);
    expect(project.folders).toEqual([{ nodeType: 'folder', name: 'day one', children: [{ nodeType: 'component', iid: 0 }] }]);
    expect(await nameOf('workflow', wf, 'create-copied-wf')).toBe('create-copied-wf');

    const refused = await platform.http('POST', '/automation-studio/projects', {
      token: admin,
      body: {
        name: 'never made',
        components: [
          { type: 'workflow', reference: wf },
          { type: 'transformation', reference: 'no-such-transformation' },
        ],
      },
    });
    expect(refused).toMatchObject({ status: 404, body: { code: 'TRANSFORMATION_NOT_FOUND' } });
    const listed = await platform.http('GET', '/automation-studio/projects?equals[name]=never made', { token: admin });
    expect((listed.body as { data: unknown[] }).data).toEqual([]);
    const copies = await platform.http('GET', `/automation-studio/automations?contains[name]=create-copied-wf`, { token: admin });
    expect(JSON.stringify(copies.body)).not.toContain('never made');
  });
});

describe('adding components', () => {
  it.each(TYPES)('moves a %s into the project: the document itself, renamed as a member, its id kept', async (type) => {
    const project = await newProject(`move ${type}`);
    const id = await created(type, `moved-${type}`);
    const res = await add(project._id, { mode: 'move', components: [{ type, reference: id, folder: '/moved' }] });
    expect(res.status).toBe(200);
    expect(validateResponse(getOperation('studio.addProjectComponents'), res.body)).toEqual([]);
    const member = `@${project._id}: moved-${type}`;
    expect((res.body as Envelope<Project>).data.components).toEqual([
      { iid: 0, type, reference: id, folder: '/moved', name: `moved-${type}`, storedName: member },
    ]);
    expect(await nameOf(type, id, member)).toBe(member);
    // moved out again: its plain name back, its id kept
    const out = await remove(project._id, 0, { options: { mode: 'move' } });
    expect(out.status).toBe(200);
    expect((out.body as Envelope<Project>).data).toMatchObject({
      components: [],
      folders: [{ nodeType: 'folder', name: 'moved', children: [] }],
    });
    expect(await nameOf(type, id, `moved-${type}`)).toBe(`moved-${type}`);
    // copied in: a new document beside it, the original left as it is
    const copied = await add(project._id, { mode: 'copy', components: [{ type, reference: id }] });
    expect(copied.status).toBe(200);
    const [copy] = (copied.body as Envelope<Project>).data.components;
    // the project has no component left: numbers start again from 0
    expect(copy).toMatchObject({ iid: 0, type, name: `moved-${type}`, storedName: member });
    expect(copy?.reference).not.toBe(id);
    expect(await nameOf(type, copy!.reference, member)).toBe(member);
    expect(await nameOf(type, id, `moved-${type}`)).toBe(`moved-${type}`);
  });

  it('copies (the original stays), duplicates under the first free name, and takes in a document made for the project', async () => {
    const project = await newProject('copies');
    const tr = await created('transformation', 'copied-tr');
    const copied = await add(project._id, { mode: 'copy', components: [{ type: 'transformation', reference: tr }] });
    expect(copied.status).toBe(200);
    const [copy] = (copied.body as Envelope<Project>).data.components;
    expect(copy).toMatchObject({ iid: 0, name: 'copied-tr', storedName: `@${project._id}: copied-tr` });
    expect(copy?.reference).not.toBe(tr);
    expect(await nameOf('transformation', tr, 'copied-tr')).toBe('copied-tr');

    // a copy again clashes with the member; a duplicate takes the next free name, of a member too
    const clash = await add(project._id, { mode: 'copy', components: [{ type: 'transformation', reference: tr }] });
    expect(clash).toMatchObject({
      status: 409,
      body: {
        code: 'TRANSFORMATION_ALREADY_EXISTS',
        message: `Component 1 (transformation "copied-tr") was refused: a transformation named "@${project._id}: copied-tr" already exists; names are unique. Nothing was added.`,
      },
    });
    const dup = await add(project._id, {
      mode: 'duplicate',
      components: [
        { type: 'transformation', reference: tr },
        { type: 'transformation', reference: copy!.reference },
      ],
    });
    expect(dup.status).toBe(200);
    expect((dup.body as Envelope<Project>).data.components.map((c) => [c.iid, c.storedName])).toEqual([
      [0, `@${project._id}: copied-tr`],
      [1, `@${project._id}: copied-tr (2)`],
      [2, `@${project._id}: copied-tr (3)`],
    ]);

    // a form's copy leaves out the id another platform gave the form: that id still finds the original alone
    const form = await created('jsonForm', 'copied-form', { id: 'ext-copied-form' });
    const formCopied = await add(project._id, { mode: 'copy', components: [{ type: 'jsonForm', reference: form }] });
    expect(formCopied.status).toBe(200);
    const formCopy = (formCopied.body as Envelope<Project>).data.components.find((c) => c.type === 'jsonForm');
    const copyRead = (await platform.http('GET', `/formbuilder/forms/${formCopy?.reference ?? ''}`, { token: admin })).body as Body;
    expect(copyRead).toMatchObject({ name: `@${project._id}: copied-form` });
    expect(copyRead).not.toHaveProperty('id');
    expect((await platform.http('GET', '/formbuilder/forms/ext-copied-form', { token: admin })).body).toMatchObject({ _id: form });

    // create: a document made for the project through its own route, taken in as it is
    const made = await created('template', `@${project._id}: made-here`);
    const taken = await add(project._id, { components: [{ type: 'template', reference: made, iid: 7 }] });
    expect(taken.status).toBe(200);
    expect((taken.body as Envelope<Project>).data.components.at(-1)).toEqual({
      iid: 7,
      type: 'template',
      reference: made,
      folder: '/',
      name: 'made-here',
      storedName: `@${project._id}: made-here`,
    });
    const plain = await created('template', 'plain-template');
    const refused = await add(project._id, { components: [{ type: 'template', reference: plain }] });
    expect(refused).toMatchObject({
      status: 400,
      body: { code: 'VALIDATION_FAILED', details: [{ member: 'body.components[0].reference' }] },
    });
    expect((refused.body as { message: string }).message).toMatch(/use mode move or copy/);
    const iidTaken = await add(project._id, { mode: 'copy', components: [{ type: 'template', reference: plain, iid: 7 }] });
    expect(iidTaken).toMatchObject({ status: 409, body: { code: 'CONFLICT', details: [{ member: 'body.components[0].iid' }] } });
  });

  it('is all or nothing: a component refused leaves every document and the project as they were', async () => {
    const project = await newProject('all or nothing');
    const first = await created('workflow', 'aon-first');
    const second = await created('workflow', 'aon-second');
    await created('workflow', `@${project._id}: aon-second`);
    const before = await stored(project._id);
    const res = await add(project._id, {
      mode: 'move',
      components: [
        { type: 'workflow', reference: first },
        { type: 'workflow', reference: second },
      ],
    });
    expect(res).toMatchObject({
      status: 409,
      body: {
        code: 'WORKFLOW_ALREADY_EXISTS',
        message: `Component 1 (workflow "aon-second") was refused: a workflow named "@${project._id}: aon-second" already exists; names are unique. Nothing was added.`,
      },
    });
    expect(await nameOf('workflow', first, 'aon-first')).toBe('aon-first');
    expect(await nameOf('workflow', second, 'aon-second')).toBe('aon-second');
    expect(await stored(project._id)).toEqual(before);

    // a member of a project is not moved into another
    const other = await newProject('all or nothing, other');
    expect((await add(project._id, { mode: 'move', components: [{ type: 'workflow', reference: first }] })).status).toBe(200);
    const twice = await add(other._id, { mode: 'move', components: [{ type: 'workflow', reference: first }] });
    expect(twice).toMatchObject({ status: 409, body: { code: 'CONFLICT' } });
    expect((twice.body as { message: string }).message).toContain(`is a component of project "all or nothing" (${project._id})`);
  });

  it('refuses a document the caller may not see, naming it by iid and type alone, and keeps hidden members hidden', async () => {
    const project = await newProject('guarded adds');
    const secret = await created('jsonForm', 'secret-form', { groups: [insider.groupId] }, admin);
    const denied = await add(project._id, { mode: 'move', components: [{ type: 'jsonForm', reference: secret }] }, outsider.token);
    expect(denied).toMatchObject({
      status: 403,
      body: {
        code: 'GROUP_ACCESS_DENIED',
        message: 'Component 0 (jsonForm) was refused: it is shared with groups you are not a member of. Nothing was added.',
        details: { count: 1, components: [{ iid: 0, type: 'jsonForm' }] },
      },
    });
    expect(JSON.stringify(denied.body)).not.toContain('secret-form');
    expect(await nameOf('jsonForm', secret, 'secret-form')).toBe('secret-form');

    // the insider may; the outsider may still add others to the project, its secret member left out of the answer
    expect((await add(project._id, { mode: 'move', components: [{ type: 'jsonForm', reference: secret }] }, insider.token)).status).toBe(
      200,
    );
    const open = await created('template', 'open-template', {}, outsider.token);
    const added = await add(project._id, { mode: 'move', components: [{ type: 'template', reference: open }] }, outsider.token);
    expect(added.status).toBe(200);
    expect((added.body as Envelope<Project>).data.components.map((c) => c.iid)).toEqual([1]);
    expect((added.body as Envelope<Project>).metadata).toEqual({ componentsLeftOut: 1 });
    expect(JSON.stringify(added.body)).not.toContain('secret-form');
    const removeHidden = await remove(project._id, 0, undefined, outsider.token);
    expect(removeHidden).toMatchObject({
      status: 403,
      body: { code: 'GROUP_ACCESS_DENIED', details: { components: [{ iid: 0, type: 'jsonForm' }] } },
    });
    expect(JSON.stringify(removeHidden.body)).not.toContain('secret-form');
  });

  it('is recorded in the audit trail: the project, and each component added with what became of its document', async () => {
    const project = await newProject('audited');
    const wf = await created('workflow', 'audited-wf');
    const res = await add(project._id, { mode: 'move', components: [{ type: 'workflow', reference: wf, folder: '/a' }] });
    expect(res.status).toBe(200);
    const record = await platform.auditRecordOf(res, admin);
    expect(record).toMatchObject({
      operation: 'studio.addProjectComponents',
      target: { kind: 'project', id: project._id, name: 'audited' },
      outcome: { status: 200 },
    });
    expect(record.changes).toEqual([
      {
        member: 'components.0',
        after: {
          type: 'workflow',
          reference: wf,
          name: 'audited-wf',
          storedName: `@${project._id}: audited-wf`,
          folder: '/a',
          renamedFrom: 'audited-wf',
        },
      },
      { member: 'folders', before: [], after: [{ nodeType: 'folder', name: 'a', children: [{ nodeType: 'component', iid: 0 }] }] },
    ]);
    const removed = await remove(project._id, wf, { options: { mode: 'delete' } });
    expect(removed.status).toBe(200);
    const removal = await platform.auditRecordOf(removed, admin);
    expect(removal).toMatchObject({ operation: 'studio.removeProjectComponent', target: { kind: 'project', id: project._id } });
    expect(removal.changes?.[0]).toMatchObject({ member: 'components.0', before: { reference: wf, document: 'deleted' } });
  });
});

describe('removing a component', () => {
  it('moves it out by default, deletes it with mode delete, and refuses a move out onto a name taken', async () => {
    const project = await newProject('removals');
    const kept = await created('transformation', 'rm-kept');
    const deleted = await created('transformation', 'rm-deleted');
    const clashing = await created('transformation', 'rm-clash');
    expect(
      (
        await add(project._id, {
          mode: 'move',
          components: [
            { type: 'transformation', reference: kept },
            { type: 'transformation', reference: deleted },
            { type: 'transformation', reference: clashing },
          ],
        })
      ).status,
    ).toBe(200);
    await created('transformation', 'rm-clash');

    const byDefault = await remove(project._id, 0);
    expect(byDefault.status).toBe(200);
    expect(validateResponse(getOperation('studio.removeProjectComponent'), byDefault.body)).toEqual([]);
    expect(await nameOf('transformation', kept, 'rm-kept')).toBe('rm-kept');

    const gone = await remove(project._id, 1, { options: { mode: 'delete' } });
    expect(gone.status).toBe(200);
    expect(await nameOf('transformation', deleted, 'rm-deleted')).toBeUndefined();

    const before = await stored(project._id);
    const clash = await remove(project._id, 2, { options: { mode: 'move' } });
    expect(clash).toMatchObject({ status: 409, body: { code: 'TRANSFORMATION_ALREADY_EXISTS' } });
    expect((clash.body as { message: string }).message).toMatch(
      /^Component 2 \(transformation "rm-clash"\) was refused: .*Nothing was removed\.$/,
    );
    expect(await stored(project._id)).toEqual(before);
    expect((before.data.components ?? []).map((c) => c.iid)).toEqual([2]);

    expect(await remove(project._id, 9)).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    expect(await remove('no-such-project', 0)).toMatchObject({ status: 404, body: { code: 'PROJECT_NOT_FOUND' } });
    expect(await remove(project._id, 2, { options: { mode: 'shred' } })).toMatchObject({
      status: 400,
      body: { code: 'VALIDATION_FAILED' },
    });
  });
});

describe('a change of components a crash left unfinished', () => {
  it('is undone at the next start: documents renamed back, copies deleted, a project being created deleted', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nap-project-crash-'));
    try {
      let first: TestPlatform | undefined = await startTestPlatform({ dataDir });
      const token = await first.login();
      const http = first.http.bind(first);
      const made = async (route: string, body: Body): Promise<Envelope<Project>> => {
        const res = await http('POST', route, { token, body });
        expect(res.status).toBe(200);
        return res.body as Envelope<Project>;
      };
      const project = (await made('/automation-studio/projects', { name: 'crashed' })).data;
      const moved = (await http('POST', '/transformations', { token, body: documentOf('transformation', 'crash-moved') })).body as {
        _id: string;
      };
      const original = (await http('POST', '/transformations', { token, body: documentOf('transformation', 'crash-original') })).body as {
        _id: string;
      };
      // the documents as a request writes them before it ends: one moved in, one copied
      const added = await made(`/automation-studio/projects/${project._id}/components/add`, {
        mode: 'move',
        components: [{ type: 'transformation', reference: moved._id }],
      });
      const copied = await made(`/automation-studio/projects/${project._id}/components/add`, {
        mode: 'copy',
        components: [{ type: 'transformation', reference: original._id }],
      });
      const copy = copied.data.components[1]!;
      const creating = (await made('/automation-studio/projects', { name: 'never finished' })).data;
      await first.stop();
      first = undefined;

      // the crash: the records still journaling, their components not yet written
      const store = createStore({ dataDir, dbName: serviceDatabase('studio') });
      const projects = store.collection<Body & { _id: string }>('projects');
      await projects.replaceOne(
        { _id: project._id },
        {
          ...(added.data as unknown as Body),
          components: [],
          changing: {
            startedAt: 0,
            undo: [
              { type: 'transformation', reference: moved._id, storedName: `@${project._id}: crash-moved`, renameTo: 'crash-moved' },
              { type: 'transformation', reference: copy.reference, storedName: copy.storedName },
            ],
          },
        },
      );
      await projects.replaceOne(
        { _id: creating._id },
        { ...(creating as unknown as Body), changing: { startedAt: 0, creating: true, undo: [] } },
      );
      await store.close();

      const second = await startTestPlatform({ dataDir });
      try {
        const again = await second.login();
        await eventually(
          'the unfinished changes undone',
          async () => {
            const p = await second.http('GET', `/automation-studio/projects/${project._id}`, { token: again });
            const gone = await second.http('GET', `/automation-studio/projects/${creating._id}`, { token: again });
            const tr = await second.http('GET', `/transformations/${moved._id}`, { token: again });
            const copyRead = await second.http('GET', `/transformations/${copy.reference}`, { token: again });
            return (
              (p.body as Envelope<Project>).data.components.length === 0 &&
              gone.status === 404 &&
              (tr.body as { name: string }).name === 'crash-moved' &&
              copyRead.status === 404
            );
          },
          { timeoutMs: 20_000 },
        );
        // the project is free again
        const patched = await second.http('PATCH', `/automation-studio/projects/${project._id}`, {
          token: again,
          body: { description: 'free' },
        });
        expect(patched.status).toBe(200);
        expect(JSON.stringify(patched.body)).not.toContain('changing');
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
