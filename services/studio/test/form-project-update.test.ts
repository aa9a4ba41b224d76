import { getOperation, validateResponse } from '@nap/contracts';
import type { Envelope, ExportedProject, Project, StoredForm } from '@nap/contracts';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { linearWorkflow, userWithRoles } from './helpers';

/**
 * `PUT /formbuilder/forms/:id` and `PATCH /automation-studio/projects/:id` through HTTP: a form is
 * replaced as it is created (its id and creation stamp kept), a project's own members change and
 * its components stay; unknown members, unknown ids, name clashes, roles and groups are refused;
 * the audit trail lists what changed.
 */
let platform: TestPlatform;
let admin: string;
/** engineering, in the group the guarded documents are shared with */
let insider: { token: string; groupId: string };
/** engineering, in none of those groups */
let outsider: { token: string; groupId: string };
/** apiread: may read, may not write */
let reader: { token: string; groupId: string };

beforeAll(async () => {
  platform = await startTestPlatform();
  admin = await platform.login();
  insider = await userWithRoles(platform, admin, 'update-insider', ['engineering']);
  outsider = await userWithRoles(platform, admin, 'update-outsider', ['engineering']);
  reader = await userWithRoles(platform, admin, 'update-reader', ['apiread']);
});

afterAll(async () => {
  await platform?.stop();
});

function details(body: unknown): string[] {
  return ((body as { details?: { member: string }[] }).details ?? []).map((d) => d.member).sort();
}

describe('PUT /formbuilder/forms/:id', () => {
  async function form(doc: Record<string, unknown>, token = admin): Promise<StoredForm> {
    const res = await platform.http('POST', '/formbuilder/forms', { token, body: { form: doc } });
    if (res.status !== 200) throw new Error(`form ${String(doc.name)}: ${res.status} ${JSON.stringify(res.body)}`);
    return (res.body as { data: StoredForm }).data;
  }
  const put = (id: string, body: unknown, token = admin) => platform.http('PUT', `/formbuilder/forms/${id}`, { token, body });

  it('replaces the form, keeping its id and creation stamp, and records what changed', async () => {
    const before = await form({ name: 'put-form', description: 'first', struct: { type: 'object', items: [] } }, insider.token);
    const res = await put(before._id, { form: { name: 'put-form', description: 'second', struct: { type: 'object', items: [{ a: 1 }] } } });
    expect(res.status).toBe(200);
    expect(validateResponse(getOperation('studio.updateForm'), res.body)).toEqual([]);
    const after = (res.body as { data: StoredForm }).data;
    expect(after).toMatchObject({
      _id: before._id,
      name: 'put-form',
      description: 'second',
      struct: { type: 'object', items: [{ a: 1 }] },
      created: before.created,
      created_by: 'update-insider',
      last_updated_by: 'admin',
    });
    expect((await platform.http('GET', `/formbuilder/forms/${before._id}`, { token: admin })).body).toEqual(after);
    const record = await platform.auditRecordOf(res, admin);
    expect(record).toMatchObject({ operation: 'studio.updateForm', target: { kind: 'form', id: before._id, name: 'put-form' } });
    expect(record.changes).toEqual(
      expect.arrayContaining([
        { member: 'description', before: 'first', after: 'second' },
        { member: 'struct.items', before: [], after: [{ a: 1 }] },
      ]),
    );
  });

  it('replaces the form only as it read it: replacements at the same time each record what they replaced', async () => {
    const before = await form({ name: 'put-race', description: 'd0', struct: { type: 'object', items: [] } }, insider.token);
    const answers = await Promise.all(
      [1, 2, 3, 4, 5, 6, 7, 8].map((n) =>
        put(before._id, { form: { name: 'put-race', description: `d${n}`, struct: { type: 'object', items: [] } } }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    // each replaced what the one before it left: the descriptions before and after make one chain from d0
    const steps = new Map<unknown, unknown>();
    for (const answer of answers) {
      const change = (await platform.auditRecordOf(answer, admin)).changes?.find((c) => c.member === 'description');
      expect(steps.has(change?.before)).toBe(false);
      steps.set(change?.before, change?.after);
    }
    const chain = ['d0'];
    while (steps.has(chain.at(-1))) chain.push(steps.get(chain.at(-1)) as string);
    expect(chain).toHaveLength(9);
    const stored = (await platform.http('GET', `/formbuilder/forms/${before._id}`, { token: admin })).body as StoredForm;
    expect(stored.description).toBe(chain.at(-1));
  });

  it('checks the form as on creation and refuses members the body does not have, naming them', async () => {
    const before = await form({ name: 'put-checked', struct: { type: 'object' } });
    expect(details((await put(before._id, { form: { name: 'put-checked', struct: 'oops' } })).body)).toEqual(['body.form.struct']);
    const extra = await put(before._id, { form: { name: 'put-checked' }, replace: true });
    expect(extra).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
    expect(details(extra.body)).toEqual(['body.replace']);
    const otherId = await put(before._id, { form: { _id: '2b0c4f4e-8d6b-4c1e-9f4a-0e5d8c7b6a51', name: 'put-checked' } });
    expect(otherId).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
    expect(details(otherId.body)).toEqual(['body.form._id']);
    // its own id may come along, as an export carries it
    expect((await put(before._id, { form: { _id: before._id, name: 'put-checked', struct: { type: 'object' } } })).status).toBe(200);
  });

  it('answers 404 for an unknown id and 409 for a name another form has', async () => {
    const missing = await put('0b0c4f4e-8d6b-4c1e-9f4a-0e5d8c7b6a50', { form: { name: 'nobody' } });
    expect(missing).toMatchObject({ status: 404, body: { code: 'FORM_NOT_FOUND' } });
    await form({ name: 'put-taken' });
    const mine = await form({ name: 'put-mine' });
    expect(await put(mine._id, { form: { name: 'put-taken' } })).toMatchObject({ status: 409, body: { code: 'FORM_ALREADY_EXISTS' } });
    expect((await platform.http('GET', `/formbuilder/forms/${mine._id}`, { token: admin })).body).toMatchObject({ name: 'put-mine' });
  });

  it("is refused to a role that may not create forms, and outside the form's groups", async () => {
    const guarded = await form({ name: 'put-guarded', groups: [insider.groupId] });
    expect(await put(guarded._id, { form: { name: 'put-guarded' } }, reader.token)).toMatchObject({
      status: 403,
      body: { code: 'FORBIDDEN' },
    });
    expect(await put(guarded._id, { form: { name: 'put-guarded', groups: [outsider.groupId] } }, outsider.token)).toMatchObject({
      status: 403,
      body: { code: 'GROUP_ACCESS_DENIED' },
    });
    // nor may an insider give it to a group they are not in: they would lose it
    expect(await put(guarded._id, { form: { name: 'put-guarded', groups: [outsider.groupId] } }, insider.token)).toMatchObject({
      status: 403,
      body: { code: 'GROUP_ACCESS_DENIED' },
    });
    const res = await put(guarded._id, { form: { name: 'put-guarded', groups: [insider.groupId], description: 'theirs' } }, insider.token);
    expect(res).toMatchObject({ status: 200, body: { data: { description: 'theirs', groups: [insider.groupId] } } });
  });
});

describe('PATCH /automation-studio/projects/:id', () => {
  async function project(id: string, components: ExportedProject['components'] = []): Promise<Project> {
    const body = { project: { _id: id, name: `project ${id}`, description: 'first', folders: [], components } };
    const res = await platform.http('POST', '/automation-studio/projects/import', { token: admin, body });
    if (res.status !== 200) throw new Error(`project ${id}: ${res.status} ${JSON.stringify(res.body)}`);
    return (res.body as Envelope<Project>).data;
  }
  const patch = (id: string, body: unknown, token = admin) => platform.http('PATCH', `/automation-studio/projects/${id}`, { token, body });

  it('changes its name and description, keeps its components, and records what changed', async () => {
    const before = await project('bbbbbbbbbbbbbbbbbbbbbb01', [
      { iid: 0, type: 'workflow', folder: '/', document: linearWorkflow('member-wf') },
      { iid: 1, type: 'jsonForm', folder: '/', document: { name: 'member form', schema: { type: 'object' } } },
    ]);
    const res = await patch(before._id, { name: 'renamed project', description: 'second' });
    expect(res.status).toBe(200);
    expect(validateResponse(getOperation('studio.updateProject'), res.body)).toEqual([]);
    const after = (res.body as Envelope<Project>).data;
    expect(after).toEqual({ ...before, name: 'renamed project', description: 'second', lastUpdated: expect.any(String) as unknown });
    // the members keep their stored names (the project's id) and are still found by them
    const wf = before.components.find((c) => c.type === 'workflow');
    expect((await platform.http('GET', `/automation-studio/automations/${wf?.reference ?? ''}`, { token: admin })).body).toMatchObject({
      name: wf?.storedName,
    });
    expect((await platform.http('GET', `/automation-studio/projects/${before._id}`, { token: admin })).body).toMatchObject({ data: after });

    const partial = await patch(before._id, { description: 'third' });
    expect((partial.body as Envelope<Project>).data).toMatchObject({ name: 'renamed project', description: 'third' });
    const record = await platform.auditRecordOf(res, admin);
    expect(record).toMatchObject({
      operation: 'studio.updateProject',
      target: { kind: 'project', id: before._id, name: 'renamed project' },
    });
    expect(record.changes).toEqual([
      { member: 'description', before: 'first', after: 'second' },
      { member: 'name', before: before.name, after: 'renamed project' },
    ]);
  });

  it('loses no change to another made at the same time: each writes over the project only as it read it', async () => {
    const before = await project('bbbbbbbbbbbbbbbbbbbbbb09');
    const answers = await Promise.all([
      patch(before._id, { name: 'raced project' }),
      ...[1, 2, 3, 4, 5, 6].map((n) => patch(before._id, { description: `d${n}` })),
    ]);
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    const after = (await platform.http('GET', `/automation-studio/projects/${before._id}`, { token: admin })).body as Envelope<Project>;
    expect(after.data.name).toBe('raced project');
    expect(['d1', 'd2', 'd3', 'd4', 'd5', 'd6']).toContain(after.data.description);
  });

  it('is refused (409) while the project is being imported, and changes nothing of it', async () => {
    const before = await project('bbbbbbbbbbbbbbbbbbbbbb0a');
    // as an import leaves its record while it runs (and a crashed one until the next start rolls it back)
    const store = platform.stores.get('studio');
    if (store === undefined) throw new Error('the platform has no studio store');
    const projects = store.collection('projects');
    await projects.updateOne({ _id: before._id }, { $set: { importing: { startedAt: Date.now() } } });
    expect(await patch(before._id, { description: 'during the import' })).toMatchObject({ status: 409, body: { code: 'CONFLICT' } });
    expect(await projects.findOne({ _id: before._id })).toMatchObject({ description: 'first', importing: expect.any(Object) as unknown });
  });

  it('refuses members it does not change by name, an unknown id, and a name another project has', async () => {
    const mine = await project('bbbbbbbbbbbbbbbbbbbbbb02');
    const other = await project('bbbbbbbbbbbbbbbbbbbbbb03');
    const unknown = await patch(mine._id, { description: 'x', components: [], _id: 'x' });
    expect(unknown).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
    expect(details(unknown.body)).toEqual(['body._id', 'body.components']);
    expect(details((await patch(mine._id, { name: '   ' })).body)).toEqual(['body.name']);
    expect(await patch('bbbbbbbbbbbbbbbbbbbbbb99', { description: 'x' })).toMatchObject({
      status: 404,
      body: { code: 'PROJECT_NOT_FOUND' },
    });
    expect(await patch(mine._id, { name: other.name })).toMatchObject({ status: 409, body: { code: 'PROJECT_ALREADY_EXISTS' } });
    expect((await platform.http('GET', `/automation-studio/projects/${mine._id}`, { token: admin })).body).toMatchObject({
      data: { name: mine.name, description: 'first' },
    });
  });

  it('is refused to a role that may not import projects, and to a caller who may not see all its components', async () => {
    const guarded = await project('bbbbbbbbbbbbbbbbbbbbbb04', [
      { iid: 0, type: 'workflow', folder: '/', document: linearWorkflow('guarded-wf', { groups: [insider.groupId] }) },
    ]);
    expect(await patch(guarded._id, { description: 'x' }, reader.token)).toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });
    expect(await patch(guarded._id, { description: 'x' }, outsider.token)).toMatchObject({
      status: 403,
      body: { code: 'GROUP_ACCESS_DENIED', details: { components: [{ iid: 0, type: 'workflow' }] } },
    });
    expect(await patch(guarded._id, { description: 'theirs' }, insider.token)).toMatchObject({
      status: 200,
      body: { data: { description: 'theirs', lastUpdatedBy: 'update-insider' } },
    });
  });
});
