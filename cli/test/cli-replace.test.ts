import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { NapHome, NapResult } from './support/nap';
import { createHome, FIXTURES, napInProcess, profileSection } from './support/nap';
import type { Platform } from './support/platform';
import { NAP_BIN, ROOT, startPlatform } from './support/platform';
import type { Proxy } from './support/proxy';
import { startProxy } from './support/proxy';

/**
 * `import --replace` and `copy --replace` never lose a document the platform refuses to replace:
 * where the platform has an update route the document there is updated in place, elsewhere it is
 * deleted and imported again with a copy kept (in memory and in a file) and put back on a refusal.
 * "flaky" is staging behind a proxy that refuses every project and trigger import, for the case
 * where even the copy cannot go back. The commands run in this process (a node start for each cost most of the
 * file's time); the other files run the bin itself.
 */
let staging: Platform;
let production: Platform;
let flaky: Proxy;
let home: NapHome;
let work: string;

const run = (args: string[]): Promise<NapResult> => napInProcess(args, { env: home.env, cwd: work });
const fixture = (name: string): string => path.join(FIXTURES, name);
const file = (name: string, doc: unknown): string => {
  const full = path.join(work, name);
  mkdirSync(path.dirname(full), { recursive: true });
  writeFileSync(full, `${JSON.stringify(doc, null, 2)}\n`);
  return full;
};
const json = <T>(name: string): T => JSON.parse(readFileSync(fixture(name), 'utf8')) as T;

interface Named {
  _id: string;
  name: string;
  description?: string;
}

type ProjectFile = Named & { components: { iid: number; folder?: string; document: Record<string, unknown> }[]; folders?: unknown[] };

/** The project with the description of its first component changed: that component's own route changes it in place. */
function withChangedComponent(project: ProjectFile, description: string): ProjectFile {
  const [first, ...rest] = project.components;
  if (first === undefined) throw new Error(`project ${project.name} has no component`);
  return { ...project, components: [{ ...first, document: { ...first.document, description } }, ...rest] };
}

/** The project with one more component, a copy of its last one named `name`, in `folder` (`/` when absent). */
function withAddedComponent(project: ProjectFile, name: string, folder?: string): ProjectFile {
  const last = project.components[project.components.length - 1];
  if (last === undefined) throw new Error(`project ${project.name} has no component`);
  const { _id: _ignored, ...document } = last.document;
  const iid = Math.max(...project.components.map((c) => c.iid)) + 1;
  return {
    ...project,
    components: [...project.components, { ...last, iid, folder: folder ?? '/', document: { ...document, name } }],
    ...(folder === undefined
      ? {}
      : {
          folders: [...(project.folders ?? []), { nodeType: 'folder', name: folder.slice(1), children: [{ nodeType: 'component', iid }] }],
        }),
  };
}

/**
 * The project with its last component moved to the folder `folder`: no route moves a component of a
 * project between folders, so only a delete and an import can make the project there this one.
 */
function withMovedComponent(project: ProjectFile, folder: string): ProjectFile {
  const last = project.components[project.components.length - 1];
  if (last === undefined) throw new Error(`project ${project.name} has no component`);
  return {
    ...project,
    components: [...project.components.slice(0, -1), { ...last, folder }],
    folders: [{ nodeType: 'folder', name: folder.slice(1), children: [{ nodeType: 'component', iid: last.iid }] }],
  };
}

/** What the line of a project replaced by a delete and an import says after it, for a component moved between folders. */
const MOVED = (component: string): string =>
  `, deleted and imported again: the file moves ${component} to another folder, and the platform has no route that moves a component of a project between folders`;

beforeAll(async () => {
  [staging, production] = await Promise.all([startPlatform('staging-password'), startPlatform('production-password')]);
  flaky = await startProxy(staging.url, {
    refuse: (method, route) =>
      (method === 'POST' && route === '/automation-studio/projects/import') ||
      (method === 'PUT' && route === '/operations-manager/triggers'),
  });
  home = createHome();
  home.writeIpctlConfig(
    `[application]\ndefault_profile = staging\n\n${profileSection('staging', staging.port, staging.password)}\n${profileSection('production', production.port, production.password)}\n${profileSection('flaky', flaky.port, staging.password)}`,
  );
  work = mkdtempSync(path.join(os.tmpdir(), 'nap-cli-replace-'));
}, 120_000);

afterAll(async () => {
  await flaky?.stop();
  await Promise.all([staging?.stop(), production?.stop()]);
  if (home !== undefined) rmSync(home.home, { recursive: true, force: true });
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe('a document updated in place', () => {
  it('is left as it was when the platform refuses the new one, and nothing is deleted', async () => {
    const original = { ...json<Record<string, unknown>>('cli-error.workflow.json'), name: 'keep-me' };
    expect((await run(['create', 'workflow', '-f', file('keep-me.json', original)])).code).toBe(0);
    const before = (await run(['get', 'workflow', 'keep-me', '-o', 'json'])).json<Named & { tasks: object }>();

    const refused = await run(['import', 'workflow', file('bad/keep-me.workflow.json', { name: 'keep-me', tasks: 'oops' }), '--replace']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(
      /^nap: http:\/\/127\.0\.0\.1:\d+ refused workflow "keep-me": .*tasks must be object \(400 VALIDATION_FAILED\); the workflow "keep-me" there was left as it was\n$/,
    );
    expect((await run(['get', 'workflow', 'keep-me', '-o', 'json'])).json()).toEqual(before);
    const deletes = await run(['audit', 'list', '--target-name', 'keep-me', '--operation', 'studio.deleteAutomation', '-o', 'json']);
    expect(deletes.json()).toEqual([]);

    // a good one replaces it in place: the same id
    const replaced = await run([
      'import',
      'workflow',
      file('good/keep-me.workflow.json', { ...before, description: 'replaced' }),
      '--replace',
    ]);
    expect(replaced).toMatchObject({ code: 0, stdout: `imported workflow "keep-me" (${before._id}), updating the one there in place\n` });
    expect((await run(['get', 'workflow', 'keep-me', '-o', 'json'])).json()).toMatchObject({ _id: before._id, description: 'replaced' });
  });

  it('replaces the active platform profile, which cannot be deleted', async () => {
    const exported = await run(['export', 'profile', 'default', '--path', path.join(work, 'profiles')]);
    expect(exported.code).toBe(0);
    const profileFile = path.join(work, 'profiles', 'default.profile.json');
    const doc = JSON.parse(readFileSync(profileFile, 'utf8')) as Record<string, unknown>;
    writeFileSync(profileFile, JSON.stringify({ ...doc, description: 'carried over' }));
    const imported = await run(['import', 'profile', profileFile, '--replace']);
    expect(imported).toMatchObject({ code: 0, stdout: 'imported profile "default", updating the one there in place\n', stderr: '' });
    const copied = await run(['copy', 'profile', 'default', '--to', 'production', '--replace']);
    expect(copied.code).toBe(0);
    expect(copied.stdout).toMatch(/^copied profile "default" from staging .* to production .*, updating the one there in place\n$/);
    const there = await run(['get', 'profile', 'default', '--profile', 'production', '-o', 'json']);
    expect(there.json()).toMatchObject({ metadata: { isActive: true }, profile: { description: 'carried over' } });
  });

  it('replaces a trigger of the automation it belongs to, keeping its id', async () => {
    expect((await run(['import', 'automation', fixture('cli-nightly.automation.json')])).code).toBe(0);
    // another automation's trigger of the same name is not the one an import of this one replaces
    const other = await run([
      'api',
      'post',
      '/operations-manager/automations',
      '--data',
      '{"automation":{"name":"cli-other","componentName":"keep-me"}}',
      '-o',
      'json',
    ]);
    const otherId = other.json<{ data: { _id: string } }>().data._id;
    expect(
      (
        await run([
          'api',
          'post',
          '/operations-manager/triggers',
          '--data',
          JSON.stringify({ name: 'By hand', type: 'manual', actionId: otherId }),
        ])
      ).code,
    ).toBe(0);
    const exported = await run(['export', 'trigger', 'cli-nightly-by-hand']);
    const trigger = JSON.parse(exported.stdout) as Named & { actionId: string };
    const changed = file('triggers/by-hand.trigger.json', { ...trigger, description: 'changed by an import' });
    const replaced = await run(['import', 'trigger', changed, '--replace']);
    expect(replaced).toMatchObject({
      code: 0,
      stdout: 'imported trigger "By hand" (cli-nightly-by-hand), updating the one there in place\n',
    });
    const triggers = (await run(['get', 'triggers', '-o', 'json'])).json<(Named & { actionId: string })[]>();
    expect(
      triggers
        .filter((t) => t.name === 'By hand')
        .map((t) => [t.actionId, t.description])
        .sort(),
    ).toEqual(
      [
        ['cli-nightly-automation', 'changed by an import'],
        [otherId, ''],
      ].sort(),
    );
  });
});

describe('forms, projects and automations', () => {
  it('update a form in place, and leave one the platform refuses as it was', async () => {
    const forms = path.join(work, 'forms');
    for (const name of ['f1', 'f2'])
      expect((await run(['create', 'form', '-f', file(`${name}.json`, { name, struct: { type: 'object', items: [] } })])).code).toBe(0);
    expect((await run(['export', 'form', 'f1', '--path', forms])).code).toBe(0);
    const f1 = JSON.parse(readFileSync(path.join(forms, 'f1.form.json'), 'utf8')) as Named;
    writeFileSync(path.join(forms, 'f1.form.json'), JSON.stringify({ ...f1, description: 'changed' }));
    writeFileSync(path.join(forms, 'f2.form.json'), JSON.stringify({ name: 'f2', struct: 'oops' }));
    const f2 = (await run(['get', 'form', 'f2', '-o', 'json'])).json<Named>();
    const res = await run(['import', 'forms', forms, '--replace']);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe(`imported form "f1" (${f1._id}), updating the one there in place\n`);
    expect(res.stderr).toMatch(
      /^nap: http:\/\/127\.0\.0\.1:\d+ refused form "f2": .*struct must be object \(400 VALIDATION_FAILED\); the form "f2" there was left as it was\nnap: 1 of 2 forms not imported\n$/,
    );
    expect((await run(['get', 'form', 'f2', '-o', 'json'])).json()).toEqual(f2);
    expect((await run(['get', 'form', 'f1', '-o', 'json'])).json()).toMatchObject({ _id: f1._id, description: 'changed' });
    const deletes = await run(['audit', 'list', '--operation', 'studio.deleteForm', '-o', 'json']);
    expect(deletes.json()).toEqual([]);
  });

  it('update a project in place when its components and folders are those there', async () => {
    const project = file('in-place.project.json', { ...json<Record<string, unknown>>('cli-project.project.json'), name: 'cli-in-place' });
    expect((await run(['import', 'project', project])).code).toBe(0);
    const before = (await run(['get', 'project', 'cli-in-place', '-o', 'json'])).json<Named & { components: { storedName: string }[] }>();
    const exported = JSON.parse((await run(['export', 'project', 'cli-in-place'])).stdout) as Record<string, unknown>;
    const changed = file('in-place/cli-in-place.project.json', { ...exported, description: 'changed in place' });
    const updated = await run(['import', 'project', changed, '--replace']);
    expect(updated).toMatchObject({
      code: 0,
      stdout: `imported project "cli-in-place" (${before._id}), updating the one there in place\n`,
    });
    const after = (await run(['get', 'project', 'cli-in-place', '-o', 'json'])).json<typeof before>();
    expect(after).toMatchObject({ _id: before._id, description: 'changed in place', components: before.components });
    expect((await run(['audit', 'list', '--operation', 'studio.deleteProject', '-o', 'json'])).json()).toEqual([]);
  });

  it('update the components of a project in place through their own routes: the ids of all and the jobs of its workflow stay', async () => {
    const project = file('members.project.json', { ...json<Record<string, unknown>>('cli-project.project.json'), name: 'cli-members' });
    expect((await run(['import', 'project', project])).code).toBe(0);
    type Stored = Named & { components: { type: string; name: string; reference: string; storedName: string }[] };
    const before = (await run(['get', 'project', 'cli-members', '-o', 'json'])).json<Stored>();
    const workflow = before.components.find((c) => c.type === 'workflow')!;
    const job = (await run(['run', 'workflow', workflow.storedName, '--var', 'greeting=hi', '--wait', '-o', 'json'])).json<Named>();
    const exported = JSON.parse((await run(['export', 'project', 'cli-members'])).stdout) as ProjectFile;
    const changed = withChangedComponent({ ...exported, _id: 'another-platforms-id', description: 'members changed' }, 'changed in place');

    const res = await run(['import', 'project', file('members/cli-members.project.json', changed), '--replace']);
    expect(res).toMatchObject({
      code: 0,
      stdout: `imported project "cli-members" (${before._id}), updating the one there in place (its components: 1 changed)\n`,
      stderr: '',
    });
    const after = (await run(['get', 'project', 'cli-members', '-o', 'json'])).json<Stored>();
    expect(after).toMatchObject({ _id: before._id, description: 'members changed', components: before.components });
    expect((await run(['get', 'workflow', workflow.storedName, '-o', 'json'])).json()).toMatchObject({
      _id: workflow.reference,
      description: 'changed in place',
    });
    const jobs = (await run(['jobs', 'list', '--workflow', workflow.storedName, '-o', 'json'])).json<Named[]>();
    expect(jobs.map((j) => j._id)).toContain(job._id);
    expect((await run(['audit', 'list', '--operation', 'studio.deleteProject', '-o', 'json'])).json()).toEqual([]);
  });

  it('undo the components of a project changed before one its own route refuses', async () => {
    const project = file('undo.project.json', { ...json<Record<string, unknown>>('cli-project.project.json'), name: 'cli-undo' });
    expect((await run(['import', 'project', project])).code).toBe(0);
    const exported = JSON.parse((await run(['export', 'project', 'cli-undo'])).stdout) as ProjectFile;
    const workflowBefore = exported.components[0]!.document;
    const [first, second] = withChangedComponent(exported, 'not kept').components;
    // the workflow changes first, then the transformation is refused
    const refusedFile = {
      ...exported,
      description: 'not kept',
      components: [first!, { ...second!, document: { ...second!.document, steps: 'oops' } }],
    };
    const res = await run(['import', 'project', file('undo/cli-undo.project.json', refusedFile), '--replace']);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(
      /^nap: http:\/\/127\.0\.0\.1:\d+ refused transformation "upper" of project "cli-undo": .*\(400 VALIDATION_FAILED\); what had been changed of the project "cli-undo" there was put back as it was\n$/,
    );
    const after = JSON.parse((await run(['export', 'project', 'cli-undo'])).stdout) as ProjectFile;
    expect(after.description).toBe(exported.description);
    expect(after.components[0]!.document).toMatchObject({ _id: workflowBefore._id, description: workflowBefore.description });
  });

  it('add and take out components of a project in place: its id, the ids of the members kept and the jobs of its workflow stay', async () => {
    const project = file('grow.project.json', { ...json<Record<string, unknown>>('cli-project.project.json'), name: 'cli-grow' });
    expect((await run(['import', 'project', project])).code).toBe(0);
    type Stored = Named & {
      components: { iid: number; type: string; name: string; reference: string; storedName: string; folder: string }[];
    };
    const before = (await run(['get', 'project', 'cli-grow', '-o', 'json'])).json<Stored>();
    const workflow = before.components.find((c) => c.type === 'workflow')!;
    const upper = before.components.find((c) => c.type === 'transformation')!;
    const job = (await run(['run', 'workflow', workflow.storedName, '--var', 'greeting=hi', '--wait', '-o', 'json'])).json<Named>();
    const exported = JSON.parse((await run(['export', 'project', 'cli-grow'])).stdout) as ProjectFile;
    // "lower" added in a folder of its own, "upper" left out
    const grown = withAddedComponent(exported, 'lower', '/tools');
    const changed = { ...grown, components: grown.components.filter((c) => c.document.name !== 'upper') };

    const res = await run(['import', 'project', file('grow/cli-grow.project.json', changed), '--replace']);
    expect(res).toMatchObject({
      code: 0,
      stdout: `imported project "cli-grow" (${before._id}), updating the one there in place (its components: 1 added, 1 deleted)\n`,
      stderr: '',
    });
    const after = (await run(['get', 'project', 'cli-grow', '-o', 'json'])).json<Stored & { folders: unknown[] }>();
    expect(after._id).toBe(before._id);
    expect(after.components.map((c) => [c.type, c.name, c.folder])).toEqual([
      ['workflow', 'turn up', '/'],
      ['transformation', 'lower', '/tools'],
    ]);
    expect(after.components[0]).toEqual(workflow);
    const lower = after.components[1]!;
    expect(lower.storedName).toBe(`@${before._id}: lower`);
    expect(after.folders).toEqual([{ nodeType: 'folder', name: 'tools', children: [{ nodeType: 'component', iid: lower.iid }] }]);
    // "upper" was deleted with its document, as a delete and an import would have
    expect((await run(['get', 'transformation', upper.storedName])).code).toBe(1);
    const jobs = (await run(['jobs', 'list', '--workflow', workflow.storedName, '-o', 'json'])).json<Named[]>();
    expect(jobs.map((j) => j._id)).toContain(job._id);
    expect((await run(['audit', 'list', '--operation', 'studio.deleteProject', '-o', 'json'])).json()).toEqual([]);
    expect((await run(['audit', 'list', '--operation', 'studio.addProjectComponents', '-o', 'json'])).json()).toHaveLength(1);

    // the same file again changes nothing: the project there is the file's
    const again = await run(['import', 'project', file('grow/again/cli-grow.project.json', changed), '--replace']);
    expect(again).toMatchObject({ code: 0, stdout: `imported project "cli-grow" (${before._id}), updating the one there in place\n` });

    // a component the platform refuses to create leaves the project as it was
    const exportedAgain = JSON.parse((await run(['export', 'project', 'cli-grow'])).stdout) as ProjectFile;
    const broken = withAddedComponent(exportedAgain, 'broken');
    const refusedFile = {
      ...broken,
      components: broken.components.map((c) =>
        c.document.name === 'broken' ? { ...c, type: 'workflow', document: { name: 'broken', tasks: 'oops' } } : c,
      ),
    };
    const refused = await run(['import', 'project', file('grow/broken/cli-grow.project.json', refusedFile), '--replace']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /refused workflow "broken" of project "cli-grow": .*; the project "cli-grow" there was left as it was\n$/,
    );
    expect((await run(['get', 'project', 'cli-grow', '-o', 'json'])).json<Stored>().components).toEqual(after.components);
  });

  it('update an automation in place, its triggers kept, unless the file changes its triggers', async () => {
    const again = await run(['import', 'automation', fixture('cli-nightly.automation.json'), '--replace']);
    // the platform took the Kafka trigger in disabled (no such event here), and keeps it so
    expect(again).toMatchObject({
      code: 0,
      stdout: 'imported automation "cli-nightly" (cli-nightly-automation), updating the one there in place (its triggers: unchanged)\n',
      stderr: 'note: trigger "On a Kafka message" stays disabled: "kafka" is no event this platform publishes\n',
    });
    const triggersOf = async (): Promise<string[]> =>
      (await run(['get', 'triggers', '-o', 'json']))
        .json<(Named & { actionId: string })[]>()
        .filter((t) => t.actionId === 'cli-nightly-automation')
        .map((t) => t._id)
        .sort();
    const triggers = await triggersOf();
    expect(triggers).toEqual(['cli-nightly-by-hand', 'cli-nightly-from-ci', 'cli-nightly-on-kafka']);
    const exported = JSON.parse((await run(['export', 'automation', 'cli-nightly'])).stdout) as Named & { triggers: Named[] };

    const deletes = async (): Promise<unknown[]> =>
      (await run(['audit', 'list', '--operation', 'workflow.deleteAutomation', '-o', 'json'])).json();
    const deletedBefore = (await deletes()).length;
    const changed = file('in-place/cli-nightly.automation.json', { ...exported, description: 'changed in place' });
    expect(await run(['import', 'automation', changed, '--replace'])).toMatchObject({
      code: 0,
      stdout: 'imported automation "cli-nightly" (cli-nightly-automation), updating the one there in place\n',
    });
    expect((await run(['get', 'automation', 'cli-nightly', '-o', 'json'])).json()).toMatchObject({ description: 'changed in place' });
    expect(await triggersOf()).toEqual(triggers);
    expect(await deletes()).toHaveLength(deletedBefore);

    // a trigger less: the automation stays, the trigger the file leaves out goes
    const fewer = file('fewer/cli-nightly.automation.json', {
      ...exported,
      triggers: exported.triggers.filter((t) => t.name !== 'On a Kafka message'),
    });
    expect(await run(['import', 'automation', fewer, '--replace'])).toMatchObject({
      code: 0,
      stdout: 'imported automation "cli-nightly" (cli-nightly-automation), updating the one there in place (its triggers: 1 deleted)\n',
    });
    expect(await triggersOf()).toEqual(['cli-nightly-by-hand', 'cli-nightly-from-ci']);
    expect(await deletes()).toHaveLength(deletedBefore);
  });
});

type TriggerDoc = Named & { type: string; actionId?: string; [member: string]: unknown };
type AutomationDoc = Named & { triggers: TriggerDoc[] };

/** An export without what every save stamps, its triggers in name order: what a person wrote. */
function written(doc: AutomationDoc): unknown {
  const bare = ({ created: _c, createdBy: _cb, lastUpdated: _u, lastUpdatedBy: _ub, ...rest }: Record<string, unknown>) => rest;
  return { ...bare({ ...doc }), triggers: doc.triggers.map(bare).sort((a, b) => String(a.name).localeCompare(String(b.name))) };
}

describe('an automation whose triggers change', () => {
  // an automation of its own: the fixture's, its ids and route name its own
  beforeAll(async () => {
    const fixtureDoc = json<AutomationDoc>('cli-nightly.automation.json');
    const own = {
      ...fixtureDoc,
      _id: 'cli-changing-automation',
      name: 'cli-changing',
      triggers: fixtureDoc.triggers.map((t) => ({
        ...t,
        _id: t._id.replace('cli-nightly', 'cli-changing'),
        actionId: 'cli-changing-automation',
        ...(t.routeName === undefined ? {} : { routeName: 'cli-changing' }),
      })),
    };
    expect((await run(['import', 'automation', file('changing/cli-changing.automation.json', own)])).code).toBe(0);
  });

  const exportAutomation = async (): Promise<AutomationDoc> => {
    const res = await run(['export', 'automation', 'cli-changing']);
    expect(res.code).toBe(0);
    return JSON.parse(res.stdout) as AutomationDoc;
  };
  const nightly: TriggerDoc = {
    name: 'Every night',
    type: 'schedule',
    enabled: false,
    firstRunAt: Date.UTC(2031, 0, 1, 2),
    repeatUnit: 'day',
    repeatFrequency: 1,
    processMissedRuns: 'none',
  } as unknown as TriggerDoc;

  it('is updated in place: its id and the ids of the triggers it keeps stay, the others are created and deleted', async () => {
    const before = await exportAutomation();
    const byHand = before.triggers.find((t) => t.name === 'By hand')!;
    const fromCi = before.triggers.find((t) => t.name === 'From CI')!;
    const deletesBefore = (await run(['audit', 'list', '--operation', 'workflow.deleteAutomation', '-o', 'json'])).json<unknown[]>().length;
    // the file of another platform: other ids, the trigger matched by its name
    const changed = file('triggers-changed/cli-changing.automation.json', {
      ...before,
      description: 'its triggers changed in place',
      // On a Kafka message left out
      triggers: [{ ...byHand, _id: 'elsewhere-by-hand', description: 'now with a description' }, fromCi, nightly],
    });
    const res = await run(['import', 'automation', changed, '--replace']);
    expect(res).toMatchObject({
      code: 0,
      stdout:
        'imported automation "cli-changing" (cli-changing-automation), updating the one there in place (its triggers: 1 changed, 1 created, 1 deleted)\n',
      stderr: '',
    });
    const after = await exportAutomation();
    expect(after).toMatchObject({ _id: 'cli-changing-automation', description: 'its triggers changed in place' });
    expect(after.triggers.map((t) => [t.name, t._id, t.actionId]).sort()).toEqual(
      [
        ['By hand', 'cli-changing-by-hand', 'cli-changing-automation'],
        ['Every night', expect.any(String), 'cli-changing-automation'],
        ['From CI', 'cli-changing-from-ci', 'cli-changing-automation'],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
    expect(after.triggers.find((t) => t.name === 'By hand')).toMatchObject({ description: 'now with a description' });
    expect(after.triggers.find((t) => t.name === 'Every night')).toMatchObject({ type: 'schedule', repeatUnit: 'day', enabled: false });
    // nothing deleted and imported again: the automation is the one there
    expect((await run(['audit', 'list', '--operation', 'workflow.deleteAutomation', '-o', 'json'])).json<unknown[]>()).toHaveLength(
      deletesBefore,
    );
    // the same file again changes nothing
    expect(await run(['import', 'automation', changed, '--replace'])).toMatchObject({
      code: 0,
      stdout: 'imported automation "cli-changing" (cli-changing-automation), updating the one there in place (its triggers: unchanged)\n',
    });
  });

  it('is put back as it was when the platform refuses a trigger halfway, the error naming the trigger', async () => {
    const before = await exportAutomation();
    const [byHand, everyNight] = ['By hand', 'Every night'].map((n) => before.triggers.find((t) => t.name === n)!);
    // the automation changes, From CI goes, By hand changes, then Every night is refused: all of it undone
    const refusedFile = file('triggers-refused/cli-changing.automation.json', {
      ...before,
      description: 'must not stay',
      triggers: [
        { ...byHand, description: 'must not stay either' },
        { ...everyNight, repeatUnit: 'fortnight' },
        { name: 'Never created', type: 'manual' },
      ],
    });
    const res = await run(['import', 'automation', refusedFile, '--replace']);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(
      /^nap: http:\/\/127\.0\.0\.1:\d+ refused trigger "Every night" of automation "cli-changing": .*repeatUnit must be one of .*\(400 VALIDATION_FAILED\); what had been changed of the automation "cli-changing" there was put back as it was\n$/,
    );
    const after = await exportAutomation();
    expect(written(after)).toEqual(written(before));
    expect(after.triggers.map((t) => t._id).sort()).toEqual(before.triggers.map((t) => t._id).sort());
  });

  it('says what could not be put back and where its copy is when the rollback fails too, and the copy puts it back', async () => {
    const before = await exportAutomation();
    const everyNight = before.triggers.find((t) => t.name === 'Every night')!;
    // behind "flaky", a trigger deleted cannot be imported back
    const res = await run([
      'import',
      'automation',
      file('rollback-fails/cli-changing.automation.json', {
        ...before,
        triggers: before.triggers
          .filter((t) => t.name !== 'From CI')
          .map((t) => (t === everyNight ? { ...t, repeatUnit: 'fortnight' } : t)),
      }),
      '--replace',
      '--profile',
      'flaky',
    ]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(
      /^nap: http:\/\/127\.0\.0\.1:\d+ refused trigger "Every night" of automation "cli-changing": .*\(400 VALIDATION_FAILED\); the automation "cli-changing" there was changed in part and could NOT all be put back \(trigger "From CI" \(cli-changing-from-ci, deleted\): .*503 PROXY_REFUSED.*\): its copy as it was is \S+ \(`nap import automation \S+ --replace` makes it that again\)\n$/,
    );
    const backup = /its copy as it was is (\S+\.automation\.json) /.exec(res.stderr)?.[1];
    expect(backup).toBeDefined();
    expect(statSync(backup!).mode & 0o777).toBe(0o600);
    expect((await exportAutomation()).triggers.map((t) => t.name).sort()).toEqual(['By hand', 'Every night']);

    const restored = await run(['import', 'automation', backup!, '--replace']);
    expect(restored).toMatchObject({
      code: 0,
      stdout: 'imported automation "cli-changing" (cli-changing-automation), updating the one there in place (its triggers: 1 created)\n',
    });
    const after = await exportAutomation();
    expect(written(after)).toEqual(written(before));
    expect(after.triggers.find((t) => t.name === 'From CI')?._id).toBe('cli-changing-from-ci');
    rmSync(path.dirname(backup!), { recursive: true, force: true });
  });

  it('is refused before anything changes when its triggers cannot be told apart by name', async () => {
    const before = await exportAutomation();
    const byHand = before.triggers.find((t) => t.name === 'By hand')!;
    const twice = await run([
      'import',
      'automation',
      file('twice/cli-changing.automation.json', {
        ...before,
        description: 'no',
        triggers: [...before.triggers, { ...byHand, _id: 'another' }],
      }),
      '--replace',
    ]);
    expect(twice).toMatchObject({
      code: 4,
      stderr:
        'nap: automation "cli-changing": the file has two triggers named "By hand", and nap matches the file\'s triggers to those there by name: give each its own; nothing was changed\n',
    });
    // two of one name there: the file's must name one by its _id
    const second = await run([
      'api',
      'post',
      '/operations-manager/triggers',
      '--data',
      JSON.stringify({ name: 'By hand', type: 'manual', actionId: 'cli-changing-automation' }),
      '-o',
      'json',
    ]);
    const secondId = second.json<{ data: { _id: string } }>().data._id;
    const { _id: _ignored, ...withoutId } = byHand;
    const ambiguous = await run([
      'import',
      'automation',
      file('ambiguous/cli-changing.automation.json', { ...before, description: 'no', triggers: [withoutId] }),
      '--replace',
    ]);
    expect(ambiguous).toMatchObject({
      code: 1,
      stderr: `nap: automation "cli-changing" has 2 triggers named "By hand" there (${[byHand._id, secondId].join(', ')}) and the file's has the _id of none: nap cannot tell which one it replaces; rename one there, or give the file's the _id of one; nothing was changed\n`,
    });
    const untouched = await exportAutomation();
    expect(untouched.description).toBe(before.description);
    expect(untouched.triggers.map((t) => t._id).sort()).toEqual([...before.triggers.map((t) => t._id), secondId].sort());
    // named by its _id, the other one of that name goes
    expect(await run(['import', 'automation', file('by-id/cli-changing.automation.json', before), '--replace'])).toMatchObject({
      code: 0,
      stdout: 'imported automation "cli-changing" (cli-changing-automation), updating the one there in place (its triggers: 1 deleted)\n',
    });
    expect(written(await exportAutomation())).toEqual(written(before));
  });
  it('deletes and creates again a trigger whose type changes (a type cannot change), keeping the id the file gives it', async () => {
    const before = await exportAutomation();
    const fromCi = before.triggers.find((t) => t.name === 'From CI')!;
    const manual = { _id: fromCi._id, name: 'From CI', type: 'manual', enabled: true, description: 'by hand now' };
    const res = await run([
      'import',
      'automation',
      file('type-changed/cli-changing.automation.json', { ...before, triggers: before.triggers.map((t) => (t === fromCi ? manual : t)) }),
      '--replace',
    ]);
    expect(res).toMatchObject({
      code: 0,
      stdout:
        'imported automation "cli-changing" (cli-changing-automation), updating the one there in place (its triggers: 1 replaced (its type changed))\n',
    });
    const after = (await exportAutomation()).triggers.find((t) => t.name === 'From CI');
    expect(after).toMatchObject({ _id: 'cli-changing-from-ci', type: 'manual', description: 'by hand now' });
    expect(after).not.toHaveProperty('routeName');
  });
});

describe('a document deleted and imported again', () => {
  it('is put back when the platform refuses the new one', async () => {
    expect((await run(['import', 'project', fixture('cli-project.project.json')])).code).toBe(0);
    const before = (await run(['get', 'project', 'cli-project', '-o', 'json'])).json<Named & { components: { storedName: string }[] }>();
    const there = JSON.parse((await run(['export', 'project', 'cli-project'])).stdout) as ProjectFile;
    // a component moved between folders (only a delete and an import can do that) and a broken one added
    const added = withAddedComponent(withMovedComponent(there, '/moved'), 'broken');
    const broken = file('broken/cli-project.project.json', {
      ...added,
      components: added.components.map((c) =>
        c.document.name === 'broken' ? { ...c, type: 'workflow', document: { name: 'broken', tasks: 'oops' } } : c,
      ),
    });
    const refused = await run(['import', 'project', broken, '--replace']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^nap: http:\/\/127\.0\.0\.1:\d+ refused project "cli-project": .* \(400 VALIDATION_FAILED\); the project "cli-project" there, deleted to replace it, was put back as it was\n$/,
    );
    // the same project, with its id and its members
    const after = (await run(['get', 'project', 'cli-project', '-o', 'json'])).json<typeof before>();
    expect(after).toMatchObject({ _id: before._id, name: 'cli-project' });
    expect(after.components.map((c) => c.storedName)).toEqual(before.components.map((c) => c.storedName));
    expect((await run(['get', 'workflow', before.components[0]!.storedName])).code).toBe(0);
    // nothing is left in the temp folder once it is back
    expect(refused.stderr).not.toContain(os.tmpdir());

    // a good one replaces it
    const exported = await run(['export', 'project', 'cli-project']);
    const doc = withMovedComponent(JSON.parse(exported.stdout) as ProjectFile, '/moved');
    const replaced = await run([
      'import',
      'project',
      file('good/cli-project.project.json', { ...doc, description: 'replaced' }),
      '--replace',
    ]);
    expect(replaced).toMatchObject({
      code: 0,
      stdout: `imported project "cli-project" (${before._id}) in place of the one there${MOVED('transformation "upper"')}\n`,
    });
    expect((await run(['get', 'project', 'cli-project', '-o', 'json'])).json()).toMatchObject({ description: 'replaced' });
  });

  it('says what was deleted and where its copy is when it cannot be put back either, and exits 1', async () => {
    const exported = await run(['export', 'project', 'cli-project']);
    const doc = withMovedComponent(JSON.parse(exported.stdout) as ProjectFile, '/elsewhere');
    const res = await run(['import', 'project', file('again/cli-project.project.json', doc), '--replace', '--profile', 'flaky']);
    expect(res.code).toBe(1);
    const backup = /its copy is (\S+\.project\.json) \(`nap import project \1` puts it back\)\n$/.exec(res.stderr)?.[1];
    expect(res.stderr).toMatch(
      /^nap: http:\/\/127\.0\.0\.1:\d+ refused project "cli-project": the test proxy refused the request \(503 PROXY_REFUSED\); the project "cli-project" there was deleted to replace it and could NOT be put back \(.*503 PROXY_REFUSED\)\): its copy is /,
    );
    expect(backup).toBeDefined();
    expect(backup!.startsWith(os.tmpdir())).toBe(true);
    expect(statSync(backup!).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(backup!, 'utf8'))).toMatchObject({ _id: doc._id, name: 'cli-project' });
    expect((await run(['get', 'project', 'cli-project'])).code).toBe(1);

    // the copy brings it back as it was
    const restored = await run(['import', 'project', backup!]);
    expect(restored.code).toBe(0);
    expect((await run(['get', 'project', 'cli-project', '-o', 'json'])).json()).toMatchObject({ _id: doc._id, description: 'replaced' });
    rmSync(path.dirname(backup!), { recursive: true, force: true });
  });

  it('replaces a prebuilt of the same version by a delete and an import', async () => {
    expect((await run(['import', 'prebuilt', fixture('cli-edge-tools.prebuilt.json')])).code).toBe(0);
    const again = await run(['import', 'prebuilt', fixture('cli-edge-tools.prebuilt.json'), '--replace']);
    expect(again).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^imported prebuilt "@nap-cli\/edge-tools" \(\S+\) in place of the one there\n$/) as unknown,
    });
    expect((await run(['get', 'transformation', 'cli-prebuilt-tr'])).code).toBe(0);
  });
});

describe('a replace stopped halfway', () => {
  it('says, when a CI system cancels it (SIGTERM) between the delete and the import, where the copy is that puts the document back', async () => {
    // the import held at a proxy, so that the signal comes after the delete and before the new one is in
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const slow = await startProxy(staging.url, {
      hold: (method, route) => (method === 'POST' && route === '/prebuilts/import' ? held : undefined),
    });
    try {
      const child = spawn(process.execPath, [NAP_BIN, 'import', 'prebuilt', fixture('cli-edge-tools.prebuilt.json'), '--replace'], {
        env: { ...home.env, NAP_URL: `http://127.0.0.1:${slow.port}`, NAP_USERNAME: 'admin', NAP_PASSWORD: staging.password },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      const deadline = Date.now() + 20_000;
      while (!slow.seen.some((r) => r.method === 'POST' && r.path === '/prebuilts/import')) {
        if (Date.now() > deadline) throw new Error(`the import never reached the proxy: ${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      child.kill('SIGTERM');
      expect(await exited).toBe(143);
      const said =
        /^nap: stopped by SIGTERM while replacing prebuilt "@nap-cli\/edge-tools": if it is no longer on http:\/\/127\.0\.0\.1:\d+, its copy is (\S+) \(`nap import prebuilt \1` puts it back\)$/m.exec(
          stderr,
        );
      expect(said).not.toBeNull();
      const copy = said![1]!;
      expect(existsSync(copy)).toBe(true);
      expect((await run(['get', 'prebuilt', '@nap-cli/edge-tools'])).code).toBe(1);
      expect((await run(['import', 'prebuilt', copy])).code).toBe(0);
      expect((await run(['get', 'transformation', 'cli-prebuilt-tr'])).code).toBe(0);
      rmSync(path.dirname(copy), { recursive: true, force: true });
    } finally {
      release();
      await slow.stop();
    }
  });
});

describe('a replace stopped halfway on a terminal', () => {
  it('says where the copy is on Ctrl-C though a spinner runs (whose own handler ended the process first, unsaid)', async () => {
    // a terminal, so that the spinner runs: util-linux's script gives the run one
    const scriptBin = ['/usr/bin/script', '/bin/script'].find((f) => existsSync(f));
    if (scriptBin === undefined) throw new Error('this test needs script(1) of util-linux for a terminal: apt-get install bsdutils');
    expect((await run(['get', 'prebuilt', '@nap-cli/edge-tools'])).code).toBe(0);
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const slow = await startProxy(staging.url, {
      hold: (method, route) => (method === 'POST' && route === '/prebuilts/import' ? held : undefined),
    });
    const pidFile = path.join(work, 'nap.pid');
    try {
      const command = `echo $$ > ${pidFile}; exec ${process.execPath} ${NAP_BIN} import prebuilt ${fixture('cli-edge-tools.prebuilt.json')} --replace`;
      const child = spawn(scriptBin, ['-qfec', command, '/dev/null'], {
        env: {
          ...home.env,
          TERM: 'xterm-256color',
          NAP_URL: `http://127.0.0.1:${slow.port}`,
          NAP_USERNAME: 'admin',
          NAP_PASSWORD: staging.password,
        },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let terminal = '';
      child.stdout.on('data', (d: Buffer) => (terminal += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      const deadline = Date.now() + 20_000;
      while (!slow.seen.some((r) => r.method === 'POST' && r.path === '/prebuilts/import')) {
        if (Date.now() > deadline) throw new Error(`the import never reached the proxy: ${terminal}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(terminal).toContain('Importing 1 prebuilt');
      process.kill(Number(readFileSync(pidFile, 'utf8').trim()), 'SIGINT');
      expect(await exited).toBe(130);
      const said =
        /nap: interrupted while replacing prebuilt "@nap-cli\/edge-tools": if it is no longer on http:\/\/127\.0\.0\.1:\d+, its copy is (\S+) \(`nap import prebuilt \1` puts it back\)/.exec(
          terminal,
        );
      expect(said).not.toBeNull();
      // the cursor the spinner hid is shown again
      expect(terminal.lastIndexOf('\u001b[?25h')).toBeGreaterThan(terminal.lastIndexOf('\u001b[?25l'));
      const copy = said![1]!;
      expect((await run(['import', 'prebuilt', copy])).code).toBe(0);
      rmSync(path.dirname(copy), { recursive: true, force: true });
    } finally {
      release();
      await slow.stop();
    }
  });
});

describe('a folder', () => {
  it('imports every file it can: a refused one costs no other, and the output says which is which', async () => {
    const base = { ...json<Record<string, unknown>>('cli-error.workflow.json') };
    for (const name of ['a/b', '..', 'a?b#c'])
      expect((await run(['create', 'workflow', '-f', file('one.json', { ...base, name })])).code).toBe(0);
    const batch = path.join(work, 'batch');
    for (const name of ['a/b', '..']) expect((await run(['export', 'workflow', name, '--path', batch])).code).toBe(0);
    writeFileSync(path.join(batch, 'a?b#c.workflow.json'), JSON.stringify({ name: 'a?b#c', tasks: 'oops' }));
    writeFileSync(path.join(batch, 'new-one.workflow.json'), JSON.stringify({ ...base, name: 'new-one' }));

    const res = await run(['import', 'workflows', batch, '--replace']);
    expect(res.code).toBe(1);
    expect(res.stdout.split('\n').sort()).toEqual(
      [
        '',
        expect.stringMatching(/^imported workflow "\.\." \(\S+\), updating the one there in place$/),
        expect.stringMatching(/^imported workflow "a\/b" \(\S+\), updating the one there in place$/),
        expect.stringMatching(/^imported workflow "new-one" \(\S+\)$/),
      ].sort(),
    );
    expect(res.stderr).toMatch(
      /^nap: http:\/\/127\.0\.0\.1:\d+ refused workflow "a\?b#c": .*tasks must be object \(400 VALIDATION_FAILED\); the workflow "a\?b#c" there was left as it was\nnap: 1 of 4 workflows not imported\n$/,
    );
    for (const name of ['a/b', '..', 'a?b#c', 'new-one'])
      expect({ name, code: (await run(['get', 'workflow', name])).code }).toEqual({ name, code: 0 });

    // without --replace: the ones there are left as they are, the others imported
    writeFileSync(path.join(batch, 'a?b#c.workflow.json'), JSON.stringify({ ...base, name: 'newer-one' }));
    const plain = await run(['import', 'workflows', batch]);
    expect(plain.code).toBe(1);
    expect(plain.stdout).toMatch(/^imported workflow "newer-one" \(\S+\)\n$/);
    expect(plain.stderr).toContain('nap: workflow "a/b" already exists on ');
    expect(plain.stderr).toMatch(/nap: 3 of 4 workflows not imported\n$/);
  });

  it('refuses, before writing anything, a document without a name or two of one name', async () => {
    const twice = path.join(work, 'twice');
    file('twice/x.workflow.json', { name: 'twin' });
    file('twice/y.workflow.json', { name: 'twin' });
    const res = await run(['import', 'workflows', twice]);
    expect(res).toMatchObject({ code: 4, stdout: '' });
    expect(res.stderr).toBe(
      `nap: 2 documents are named workflow "twin" (${path.join(twice, 'x.workflow.json')}, ${path.join(twice, 'y.workflow.json')}): import one of them; nothing was imported\n`,
    );
  });
});

describe('integration models', () => {
  it('go round: exported under their name, imported, replaced and copied', async () => {
    expect((await run(['create', 'integration-model', '-f', fixture('cli-petstore.integration-model.json')])).code).toBe(0);
    const out = path.join(work, 'models');
    const exported = await run(['export', 'integration-model', 'CliPetstore:1.0.0', '--path', out]);
    expect(exported.stderr).toBe(
      `exported integration-model "CliPetstore:1.0.0" to ${path.join(out, 'CliPetstore:1.0.0.integration-model.json')}\n`,
    );
    const exportedFile = path.join(out, 'CliPetstore:1.0.0.integration-model.json');
    const again = await run(['import', 'integration-model', exportedFile]);
    expect(again).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('integration-model "CliPetstore:1.0.0" already exists on ') as unknown,
    });
    expect(await run(['import', 'integration-model', exportedFile, '--replace'])).toMatchObject({
      code: 0,
      stdout: 'imported integration-model "CliPetstore:1.0.0", updating the one there in place\n',
    });
    // an OpenAPI document from elsewhere is named as the platform names it
    const ise = path.join(ROOT, '..', 'shared', 'fixtures', 'itential-assets', 'openapi', 'Cisco_ISE_OpenAPIs_network_device_3.2.json');
    if (existsSync(ise)) {
      const title = (JSON.parse(readFileSync(ise, 'utf8')) as { info: { title: string; version: string } }).info;
      expect(await run(['import', 'integration-model', ise])).toMatchObject({
        code: 0,
        stdout: `imported integration-model "${title.title}:${title.version}"\n`,
      });
    }
    const copied = await run(['copy', 'integration-model', 'CliPetstore:1.0.0', '--to', 'production']);
    expect(copied.stdout).toMatch(/^copied integration-model "CliPetstore:1\.0\.0" from staging .* to production /);
    expect((await run(['copy', 'integration-model', 'CliPetstore:1.0.0', '--to', 'production', '--replace'])).code).toBe(0);
    expect((await run(['get', 'integration-model', 'CliPetstore:1.0.0', '--profile', 'production'])).code).toBe(0);

    const nameless = await run(['import', 'integration-model', file('nameless.json', { openapi: '3.0.0', paths: {} })]);
    expect(nameless).toMatchObject({
      code: 4,
      stderr: `nap: an integration-model document without a name cannot be imported (${path.join(work, 'nameless.json')}); nothing was imported\n`,
    });
  });
});
