import type { Envelope, ExportedProject, Project } from '@nap/contracts';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { linearWorkflow, task, workflowDocument } from '@nap/testing';

/**
 * What a project import refuses before anything is written, and what an export refuses rather than
 * answering a document its own import would refuse: a project's components are named by their iid
 * (folders, DELETE …/components/:iid) and by type and name (the stored name), so both must be unique;
 * a project is not exported or deleted while another request imports or changes it; and the
 * references to a member include those its project's members make by its plain name.
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

function template(name: string, text = 'hostname {{ name }}'): Record<string, unknown> {
  return { name, type: 'jinja2', template: text, data: '{}' };
}

async function importProject(project: ExportedProject): Promise<{ status: number; body: unknown }> {
  return platform.http('POST', '/automation-studio/projects/import', { token: admin, body: { project } });
}

async function templateNames(): Promise<string[]> {
  const res = await platform.http('GET', '/automation-studio/templates?limit=500', { token: admin });
  expect(res.status).toBe(200);
  return (res.body as { items: { name: string }[] }).items.map((t) => t.name);
}

async function projectNames(): Promise<string[]> {
  const res = await platform.http('GET', '/automation-studio/projects?limit=500', { token: admin });
  expect(res.status).toBe(200);
  return (res.body as Envelope<Project[]>).data.map((p) => p.name);
}

describe('a project import', () => {
  it('refuses two components with one iid, naming the second, and stores nothing', async () => {
    const before = await templateNames();
    const res = await importProject({
      name: 'same iid',
      components: [
        { iid: 1, type: 'template', folder: '/', document: template('first') },
        { iid: 1, type: 'template', folder: '/', document: template('second') },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ member: 'body.project.components[1].iid', message: 'duplicate iid 1' }],
    });
    expect((res.body as { message: string }).message).toContain('both have iid 1');
    expect(await templateNames()).toEqual(before);
    expect(await projectNames()).not.toContain('same iid');
  });

  it('refuses two components of one type and name, naming the name member of the second', async () => {
    const res = await importProject({
      name: 'same name',
      components: [
        { iid: 1, type: 'template', folder: '/', document: template('twice') },
        { iid: 2, type: 'template', folder: '/', document: template('twice') },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ member: 'body.project.components[1].document.name' }],
    });
    expect((res.body as { message: string }).message).toContain('both template "twice"');
  });

  it('refuses a name of blanks only, as creating and renaming a project do', async () => {
    const res = await importProject({ name: '   ', components: [] });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ member: 'body.project.name', message: 'must not be blank' }] });
    expect(await projectNames()).not.toContain('   ');
  });
});

describe('a project export', () => {
  it('is refused (409) while the project is being imported or changed, rather than answering part of it', async () => {
    const imported = await importProject({
      name: 'export under way',
      components: [{ iid: 1, type: 'template', folder: '/', document: template('only') }],
    });
    expect(imported.status).toBe(200);
    const id = (imported.body as Envelope<Project>).data._id;
    // as an import leaves its record while it runs, with the components stored so far
    const store = platform.stores.get('studio');
    if (store === undefined) throw new Error('the platform has no studio store');
    const projects = store.collection('projects');
    await projects.updateOne({ _id: id }, { $set: { importing: { startedAt: Date.now() } } });
    const importing = await platform.http('GET', `/automation-studio/projects/${id}/export`, { token: admin });
    expect(importing).toMatchObject({ status: 409, body: { code: 'CONFLICT' } });
    expect((importing.body as { message: string }).message).toContain('still being imported');
    await projects.updateOne({ _id: id }, { $unset: { importing: '' }, $set: { changing: { startedAt: Date.now(), undo: [] } } });
    const changing = await platform.http('GET', `/automation-studio/projects/${id}/export`, { token: admin });
    expect(changing).toMatchObject({ status: 409, body: { code: 'CONFLICT' } });
    await projects.updateOne({ _id: id }, { $unset: { changing: '' } });
    const done = await platform.http('GET', `/automation-studio/projects/${id}/export`, { token: admin });
    expect(done.status).toBe(200);
    expect(Object.keys((done.body as Envelope<Record<string, unknown>>).data)).not.toContain('changing');

    // nor deleted while an import runs (it would go on storing into a project that is gone); one a crash left is
    await projects.updateOne({ _id: id }, { $set: { importing: { startedAt: Date.now() } } });
    const busy = await platform.http('DELETE', `/automation-studio/projects/${id}`, { token: admin });
    expect(busy).toMatchObject({ status: 409, body: { code: 'CONFLICT' } });
    expect((await platform.http('GET', `/automation-studio/projects/${id}`, { token: admin })).status).toBe(200);
    await projects.updateOne({ _id: id }, { $set: { importing: { startedAt: Date.now() - 24 * 3_600_000 } } });
    const left = await platform.http('DELETE', `/automation-studio/projects/${id}`, { token: admin });
    expect(left).toMatchObject({ status: 200, body: { data: { deleted: 1 } } });
  });

  it('refuses, naming both, two members a rename gave one name, and exports again once one is renamed back', async () => {
    const imported = await importProject({
      name: 'renamed onto another',
      components: [
        { iid: 1, type: 'template', folder: '/', document: template('a', 'A') },
        { iid: 2, type: 'template', folder: '/', document: template('x', 'X') },
      ],
    });
    expect(imported.status).toBe(200);
    const project = (imported.body as Envelope<Project>).data;
    const a = project.components.find((c) => c.iid === 1);
    if (a === undefined) throw new Error('component 1 missing');

    // component 1 renamed through its own route to the plain name component 2 has in the project
    const renamed = await platform.http('PUT', `/automation-studio/templates/${a.reference}`, {
      token: admin,
      body: { update: template('x', 'A') },
    });
    expect(renamed.status).toBe(200);

    const refused = await platform.http('GET', `/automation-studio/projects/${project._id}/export`, { token: admin });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      code: 'CONFLICT',
      details: {
        components: [
          { iid: 1, type: 'template', name: 'x' },
          { iid: 2, type: 'template', name: 'x' },
        ],
      },
    });
    expect((refused.body as { message: string }).message).toContain('rename one of them');

    const back = await platform.http('PUT', `/automation-studio/templates/${a.reference}`, {
      token: admin,
      body: { update: template(`@${project._id}: a`, 'A') },
    });
    expect(back.status).toBe(200);
    const exported = await platform.http('GET', `/automation-studio/projects/${project._id}/export`, { token: admin });
    expect(exported.status).toBe(200);
    const data = (exported.body as Envelope<ExportedProject>).data;
    expect(data.components.map((c) => c.document.name)).toEqual(['a', 'x']);

    // and it imports again once the project is gone (its documents keep their ids)
    expect((await platform.http('DELETE', `/automation-studio/projects/${project._id}`, { token: admin })).status).toBe(200);
    const reimported = await importProject(data);
    expect(reimported.status).toBe(200);
    expect((reimported.body as Envelope<Project>).data.components.map((c) => c.name)).toEqual(['a', 'x']);
  });
});

describe('the references to a project member', () => {
  it('include the members of its project that name it by its plain name, as their runs resolve it, and no other project', async () => {
    const caller = (name: string) => {
      const { _id: _unsaved, ...doc } = workflowDocument(
        name,
        {
          c1: task('childJob', { task: '', workflow: 'child', variables: {} }, { job_details: '' }),
          r1: task('renderJinjaTemplate', { name: 'render', context: {} }, { renderedTemplate: '' }, { app: 'TemplateBuilder' }),
        },
        [
          ['workflow_start', 'c1'],
          ['c1', 'r1'],
          ['r1', 'workflow_end'],
        ],
      );
      return doc;
    };
    const { _id: _childId, ...child } = linearWorkflow('child');
    const components = (prefix: string): ExportedProject['components'] => [
      { iid: 0, type: 'workflow', folder: '/', document: caller(`${prefix} caller`) },
      { iid: 1, type: 'workflow', folder: '/', document: child },
      { iid: 2, type: 'template', folder: '/', document: template('render') },
    ];
    const first = await importProject({ _id: 'cccccccccccccccccccccc01', name: 'refs one', components: components('one') });
    const second = await importProject({ _id: 'cccccccccccccccccccccc02', name: 'refs two', components: components('two') });
    expect([first.status, second.status]).toEqual([200, 200]);

    const referrers = async (target: string, type: string) => {
      const res = await platform.http('GET', `/automation-studio/references-to?target=${encodeURIComponent(target)}&type=${type}`, {
        token: admin,
      });
      expect(res.status).toBe(200);
      return (res.body as { references: { name: string; tasks?: string[] }[] }).references;
    };
    expect(await referrers('@cccccccccccccccccccccc01: child', 'workflow')).toEqual([
      expect.objectContaining({ name: '@cccccccccccccccccccccc01: one caller', tasks: ['c1'] }),
    ]);
    expect(await referrers('@cccccccccccccccccccccc02: render', 'template')).toEqual([
      expect.objectContaining({ name: '@cccccccccccccccccccccc02: two caller', tasks: ['r1'] }),
    ]);
    // by the member's id too
    const childId = (first.body as Envelope<Project>).data.components.find((c) => c.iid === 1)?.reference ?? '';
    expect((await referrers(childId, 'workflow')).map((r) => r.name)).toEqual(['@cccccccccccccccccccccc01: one caller']);
  });

  it('of a transformation, named by its name, include the tasks that name it by its id (tr_id)', async () => {
    const jst = await platform.http('POST', '/transformations', {
      token: admin,
      body: { name: 'referred jst', incoming: [], outgoing: [], steps: [] },
    });
    expect(jst.status).toBe(200);
    const id = (jst.body as { _id: string })._id;
    const { _id: _unsaved, ...user } = workflowDocument('jst user', { t1: task('transformation', { tr_id: id, variableMap: {} }) }, [
      ['workflow_start', 't1'],
      ['t1', 'workflow_end'],
    ]);
    expect((await platform.http('POST', '/automation-studio/automations', { token: admin, body: { automation: user } })).status).toBe(200);
    for (const target of [id, 'referred jst']) {
      const res = await platform.http('GET', `/automation-studio/references-to?target=${encodeURIComponent(target)}&type=transformation`, {
        token: admin,
      });
      expect(res.body).toMatchObject({ total: 1, references: [{ name: 'jst user', tasks: ['t1'] }] });
    }
  });
});
