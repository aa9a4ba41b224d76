import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { ExportedProject, Project } from '@nap/contracts';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { workflowDocument } from '@nap/testing';

/**
 * Projects through HTTP with the real exported projects of ../shared/fixtures/itential-assets:
 * imported together (their 32 recurring component names kept apart by the `@<project _id>: `
 * prefix), each component stored by its owning service (studio workflows, transformations,
 * templates and forms; mop command templates), exported again with the original names; and the
 * import is all or nothing.
 */

const REPO_ROOT = path.resolve(__dirname, '../..');
const FIXTURES = path.resolve(REPO_ROOT, '../shared/fixtures/itential-assets');
const present = existsSync(FIXTURES);

function fixtureProjects(): ExportedProject[] {
  return readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.project.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(path.join(FIXTURES, f), 'utf8')) as ExportedProject);
}

let platform: TestPlatform;
let token: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  token = await platform.login();
}, 60_000);

afterAll(async () => {
  await platform.stop();
});

type Envelope<T> = { message: string; data: T; metadata: Record<string, unknown> };

function signature(c: ExportedProject['components'][number]): string {
  return `${c.iid} ${c.type} ${c.folder ?? '/'} ${String(c.document.name)}`;
}

if (!present) {
  it('did NOT run the project conformance: the fixtures folder is absent', () => {
    console.warn(`\n${'!'.repeat(100)}\nPROJECT CONFORMANCE NOT RUN: ${FIXTURES} is absent.\n${'!'.repeat(100)}\n`);
    if (process.env.CI === 'true') throw new Error(`${FIXTURES} is required under CI`);
  });
} else {
  describe('the fixture projects', () => {
    const all = fixtureProjects();

    it('are 25, with component names that recur across projects', () => {
      expect(all).toHaveLength(25);
      const names = new Map<string, number>();
      for (const p of all)
        for (const c of p.components)
          names.set(`${c.type} ${String(c.document.name)}`, (names.get(`${c.type} ${String(c.document.name)}`) ?? 0) + 1);
      expect([...names.values()].filter((n) => n > 1)).toHaveLength(32);
    });

    it('import together, each component under @<project _id>: <name>, and export again with the same components', async () => {
      for (const original of all) {
        const project = original;
        const res = await platform.http('POST', '/automation-studio/projects/import', { token, body: { project } });
        expect({ project: project.name, status: res.status, body: res.status === 200 ? 'ok' : res.body }).toEqual({
          project: project.name,
          status: 200,
          body: 'ok',
        });
        const stored = (res.body as Envelope<Project>).data;
        expect(stored).toMatchObject({ _id: project._id, name: project.name, folders: project.folders });
        expect(stored.components).toHaveLength(project.components.length);
        for (const c of stored.components) expect(c.storedName).toBe(`@${project._id}: ${c.name}`);
      }
      const list = (await platform.http('GET', '/automation-studio/projects?limit=100', { token })).body as {
        data: Project[];
        metadata: { total: number };
      };
      expect(list.metadata.total).toBe(25);
      // the owning services hold the components under their stored names
      const first = all.find((p) => p.components.some((c) => c.type === 'mopCommandTemplate')) as ExportedProject;
      const mop = first.components.find((c) => c.type === 'mopCommandTemplate') as ExportedProject['components'][number];
      const template = await platform.http(
        'GET',
        `/mop/listATemplate/${encodeURIComponent(`@${first._id}: ${String(mop.document.name)}`)}`,
        { token },
      );
      expect(template.body).toEqual([expect.objectContaining({ name: `@${first._id}: ${String(mop.document.name)}` })]);
      const workflows = (
        await platform.http(
          'GET',
          `/automation-studio/workflows?startsWith=${encodeURIComponent(`@${first._id}: `)}&startsWithField=name&limit=500`,
          { token },
        )
      ).body as { total: number };
      expect(workflows.total).toBe(first.components.filter((c) => c.type === 'workflow').length);

      for (const original of all) {
        const res = await platform.http('GET', `/automation-studio/projects/${original._id}/export`, { token });
        expect(res.status).toBe(200);
        const exported = (res.body as { data: ExportedProject }).data;
        const expected = original.components;
        expect({ name: exported.name, components: exported.components.map(signature).sort() }).toEqual({
          name: original.name,
          components: expected.map(signature).sort(),
        });
        for (const c of exported.components) {
          const source = expected.find((e) => e.iid === c.iid);
          if (c.type === 'workflow')
            expect(Object.keys(c.document.tasks as object).sort()).toEqual(Object.keys(source?.document.tasks as object).sort());
          if (c.type === 'mopCommandTemplate') expect(c.document.commands).toEqual(source?.document.commands);
          if (c.type === 'template') expect(c.document.template).toEqual(source?.document.template);
          if (c.type === 'transformation')
            expect({ id: c.document._id, steps: c.document.steps }).toEqual({ id: source?.document._id, steps: source?.document.steps });
        }
      }
    }, 240_000);

    it('checks a run of an imported automation’s manual trigger against the project form the trigger names', async () => {
      // its project (in already when the test before ran), then the automation with its triggers
      const project = all.find((p) => p._id === '66d0c38721161b4df27174a3') as ExportedProject;
      const projectIn = await platform.http('POST', '/automation-studio/projects/import', { token, body: { project } });
      expect([200, 409]).toContain(projectIn.status);
      const file = readdirSync(FIXTURES).find((f) => f.startsWith('Alkira_Automations_')) as string;
      const automation = JSON.parse(readFileSync(path.join(FIXTURES, file), 'utf8')) as {
        _id: string;
        triggers: { _id: string; formId: string; formData: Record<string, unknown> }[];
      };
      const imported = await platform.http('PUT', '/operations-manager/automations', {
        token,
        body: { automations: [automation], options: {} },
      });
      expect(imported.body).toMatchObject({ message: 'Imported 1 of 1 automations' });
      const [trigger] = automation.triggers;
      if (trigger === undefined) throw new Error(`${file} has no trigger`);
      // the trigger names its form as the project member it is: found by that name
      const form = await platform.http('GET', `/formbuilder/forms/${encodeURIComponent(trigger.formId)}`, { token });
      expect(form).toMatchObject({ status: 200, body: { name: trigger.formId } });
      // the form's lists are filled when it is shown (empty enums, bound to adapters): its schema is usable, and the
      // trigger's defaults alone miss what a person fills in, each member named
      const run = await platform.http('POST', `/operations-manager/triggers/manual/${trigger._id}/run`, {
        token,
        body: { formData: trigger.formData },
      });
      expect(run).toMatchObject({
        status: 400,
        body: {
          code: 'VALIDATION_FAILED',
          details: expect.arrayContaining([expect.objectContaining({ member: 'body.formData.alkira.customerName' })]),
        },
      });
    }, 60_000);

    it('refuses a project with a component of an unknown type, naming the member, and imports nothing', async () => {
      const project = {
        ...(all[0] as ExportedProject),
        _id: 'aaaaaaaaaaaaaaaaaaaaaaaa',
        name: 'odd component',
        components: [{ iid: 0, type: 'playbook', document: { name: 'x' } }],
      };
      const res = await platform.http('POST', '/automation-studio/projects/import', { token, body: { project } });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ member: 'body.project.components[0].type' }] });
      expect((await platform.http('GET', `/automation-studio/projects/${project._id}`, { token })).status).toBe(404);
    });
  });
}

describe('project import, all or nothing', () => {
  const good = (id: string) => ({
    _id: id,
    name: `project ${id}`,
    description: 'made in a test',
    folders: [
      {
        nodeType: 'folder',
        name: 'all',
        children: [
          { iid: 0, nodeType: 'component' },
          { iid: 1, nodeType: 'component' },
          { iid: 2, nodeType: 'component' },
        ],
      },
    ],
    components: [
      {
        iid: 0,
        type: 'template',
        reference: `${id}t`,
        folder: '/all',
        document: { name: 'render', type: 'jinja2', template: 'hostname {{ name }}', data: '{}', group: 'g', command: '', description: '' },
      },
      {
        iid: 1,
        type: 'mopCommandTemplate',
        reference: `@${id}: checks`,
        folder: '/all',
        document: { name: 'checks', os: 'cisco-ios', passRule: true, commands: [{ command: 'show version', passRule: true, rules: [] }] },
      },
      {
        iid: 2,
        type: 'workflow',
        reference: `${id}-wf`,
        folder: '/all',
        // without an _id: the import gives it the component reference as its id
        document: workflowDocument('main', {}, [['workflow_start', 'workflow_end']], { _id: undefined }),
      },
    ],
  });

  it('refuses a project whose component would be refused, naming it, before anything is written', async () => {
    const project = good('bbbbbbbbbbbbbbbbbbbbbbbb');
    // a name that mop already holds is refused at the check, before anything is written
    await platform.http('POST', '/mop/createTemplate', {
      token,
      body: { mop: { name: '@bbbbbbbbbbbbbbbbbbbbbbbb: checks', os: 'x', passRule: true, commands: [] } },
    });
    const taken = await platform.http('POST', '/automation-studio/projects/import', { token, body: { project } });
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({
      code: 'TEMPLATE_ALREADY_EXISTS',
      message: expect.stringMatching(/^Component 1 \(mopCommandTemplate "checks"\)/),
    });
    expect(
      (await platform.http('GET', '/automation-studio/templates?equals[name]=@bbbbbbbbbbbbbbbbbbbbbbbb: render', { token })).body,
    ).toMatchObject({ total: 0 });

    // a workflow that is not a valid graph is refused after the others passed their checks
    const broken = good('cccccccccccccccccccccccc');
    (broken.components[2] as { document: Record<string, unknown> }).document.transitions = {
      workflow_start: { nowhere: { state: 'success', type: 'standard' } },
    };
    const refused = await platform.http('POST', '/automation-studio/projects/import', { token, body: { project: broken } });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      code: 'WORKFLOW_INVALID',
      message: expect.stringMatching(/^Component 2 \(workflow "main"\)/),
      details: expect.any(Array),
    });
    expect(
      (await platform.http('GET', '/automation-studio/templates?equals[name]=@cccccccccccccccccccccccc: render', { token })).body,
    ).toMatchObject({ total: 0 });
    expect(
      (await platform.http('GET', `/mop/listATemplate/${encodeURIComponent('@cccccccccccccccccccccccc: checks')}`, { token })).body,
    ).toEqual([]);
    expect((await platform.http('GET', '/automation-studio/projects/cccccccccccccccccccccccc', { token })).status).toBe(404);

    // a command template mop itself refuses when it is stored: named as the project's member, not as mop's body.mop
    const unshowable = good('ffffffffffffffffffffffff');
    (unshowable.components[1] as { document: Record<string, unknown> }).document.name = 'checks\u0007';
    const byMop = await platform.http('POST', '/automation-studio/projects/import', { token, body: { project: unshowable } });
    expect(byMop.status).toBe(400);
    expect(byMop.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining(
        'Component 1 (mopCommandTemplate "checks\u0007") was refused: body.project.components[1].document.name ',
      ),
      details: [{ member: 'body.project.components[1].document.name' }],
    });
    expect(JSON.stringify(byMop.body)).not.toContain('body.mop');
    expect((await platform.http('GET', '/automation-studio/projects/ffffffffffffffffffffffff', { token })).status).toBe(404);
  });

  it('deletes the components already stored when a later one fails while it is written', async () => {
    const formId = '0b5e8f6e-3c1d-4f4a-9a8b-7c6d5e4f3a2b';
    const existing = await platform.http('POST', '/formbuilder/forms', {
      token,
      body: { form: { _id: formId, name: 'holds the id', struct: {}, schema: { type: 'object' } } },
    });
    expect(existing.status).toBe(200);
    const project = good('eeeeeeeeeeeeeeeeeeeeeeee');
    // a JSON form whose id another form holds passes the checks (its name is free) and fails when it is stored,
    // after the project's template was stored
    project.components.push({
      iid: 3,
      type: 'jsonForm',
      reference: formId,
      folder: '/all',
      document: { _id: formId, name: 'order form', struct: {}, schema: { type: 'object' } },
    } as never);
    const res = await platform.http('POST', '/automation-studio/projects/import', { token, body: { project } });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({
      code: 'FORM_ALREADY_EXISTS',
      message: expect.stringMatching(/^Component 3 \(jsonForm "order form"\)/),
    });
    expect(
      (await platform.http('GET', '/automation-studio/templates?equals[name]=@eeeeeeeeeeeeeeeeeeeeeeee: render', { token })).body,
    ).toMatchObject({ total: 0 });
    expect((await platform.http('GET', '/automation-studio/projects/eeeeeeeeeeeeeeeeeeeeeeee', { token })).status).toBe(404);
    expect(
      (await platform.http('GET', '/formbuilder/forms?equals[name]=@eeeeeeeeeeeeeeeeeeeeeeee: order form', { token })).body,
    ).toMatchObject({ total: 0 });
  });

  it('imports, refuses the same project again, exports, and deletes it with its components', async () => {
    const project = good('dddddddddddddddddddddddd');
    const res = await platform.http('POST', '/automation-studio/projects/import', { token, body: { project } });
    expect(res.status).toBe(200);
    expect((res.body as Envelope<Project>).data.components).toEqual([
      expect.objectContaining({
        iid: 0,
        type: 'template',
        name: 'render',
        storedName: '@dddddddddddddddddddddddd: render',
        folder: '/all',
      }),
      expect.objectContaining({ iid: 1, type: 'mopCommandTemplate', name: 'checks' }),
      expect.objectContaining({ iid: 2, type: 'workflow', name: 'main', reference: 'dddddddddddddddddddddddd-wf' }),
    ]);
    const again = await platform.http('POST', '/automation-studio/projects/import', { token, body: { project } });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'PROJECT_ALREADY_EXISTS' });
    const one = await platform.http('GET', '/automation-studio/projects?equals[name]=project dddddddddddddddddddddddd', { token });
    expect(one.body).toMatchObject({ metadata: { total: 1 }, data: [{ _id: 'dddddddddddddddddddddddd' }] });
    const exported = (
      (await platform.http('GET', '/automation-studio/projects/dddddddddddddddddddddddd/export', { token })).body as {
        data: ExportedProject;
      }
    ).data;
    expect(exported.components.map((c) => [c.type, c.document.name, c.reference])).toEqual([
      ['template', 'render', expect.any(String)],
      ['mopCommandTemplate', 'checks', '@dddddddddddddddddddddddd: checks'],
      ['workflow', 'main', 'dddddddddddddddddddddddd-wf'],
    ]);
    const deleted = await platform.http('DELETE', '/automation-studio/projects/dddddddddddddddddddddddd', { token });
    expect(deleted.body).toMatchObject({ data: { deleted: 3 } });
    expect((await platform.http('GET', '/automation-studio/automations/dddddddddddddddddddddddd-wf', { token })).status).toBe(404);
    expect(
      (await platform.http('GET', `/mop/listATemplate/${encodeURIComponent('@dddddddddddddddddddddddd: checks')}`, { token })).body,
    ).toEqual([]);
    // exported, it imports again
    expect((await platform.http('POST', '/automation-studio/projects/import', { token, body: { project: exported } })).status).toBe(200);
  });
});
