import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { task, workflowDocument } from '@nap/testing';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';

/**
 * Prebuilts through HTTP: the 25 fixture projects packaged as prebuilts install through their
 * owning services, export from the live artifacts and uninstall without leaving anything; bundle
 * types NAP does not have are refused by name; overwrite, all or nothing, upgrade and validation.
 */

const FIXTURES = path.resolve(__dirname, '../../../../shared/fixtures/itential-assets');
const FIXTURES_PRESENT = existsSync(FIXTURES);

let platform: TestPlatform;
let token: string;

beforeAll(async () => {
  if (!FIXTURES_PRESENT) {
    const message = `PREBUILT FIXTURE TESTS NOT RUN: ${FIXTURES} is absent; put the shared fixtures beside the repository`;
    if (process.env.CI === 'true') throw new Error(message);
    console.warn(`\n${'!'.repeat(100)}\n${message}\n${'!'.repeat(100)}\n`);
  }
  platform = await startTestPlatform();
  token = await platform.login();
});

afterAll(async () => {
  await platform?.stop();
});

type Doc = Record<string, unknown>;
type Bundle = { type: string; data: Doc };
type Package = { metadata: { name: string; version: string } & Doc; manifest?: Doc; bundles: Bundle[]; readme?: string };
type Component = { id: string; name: string; type: string };
type Installed = { _id: string; metadata: { name: string; version: string }; components: Component[] };
type Failure = { code: string; message: string; details?: { member: string; message: string }[] };
type Project = { _id: string; name: string; description?: string; components: { type: string; reference?: string; document: Doc }[] };

const BUNDLE_OF: Record<string, string> = {
  workflow: 'workflow',
  transformation: 'transformation',
  template: 'template',
  mopCommandTemplate: 'mop-template',
  jsonForm: 'json-forms',
};

/** A fixture project as a prebuilt package: each component a bundle named `@<project _id>: <name>`, as the project import names them. */
function packageOf(project: Project, version = '1.0.0'): Package {
  const bundles = project.components.map((c) => {
    const type = BUNDLE_OF[c.type];
    if (type === undefined) throw new Error(`fixture component type ${c.type} has no bundle type`);
    const data: Doc = { ...c.document, name: `@${project._id}: ${String(c.document.name)}` };
    // a workflow exported without its _id keeps the component reference as its id, so links by id survive
    if (c.type === 'workflow' && data._id === undefined && c.reference !== undefined) data._id = c.reference;
    return { type, data };
  });
  return {
    metadata: {
      name: `@fixtures/${project.name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`,
      version,
      description: project.description ?? '',
      author: 'Itential',
    },
    manifest: { bundleName: project.name, artifacts: [] },
    bundles,
    readme: `# ${project.name}`,
  };
}

function projects(): Project[] {
  return readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.project.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(path.join(FIXTURES, f), 'utf8')) as Project);
}

/** How many artifacts each owning service holds: what an uninstall must bring back. */
async function inventory(): Promise<Record<string, number>> {
  const total = async (route: string): Promise<number> => {
    const res = await platform.http('GET', route, { token });
    expect(res.status).toBe(200);
    const body = res.body as { total?: number; metadata?: { total?: number } } | unknown[];
    return Array.isArray(body) ? body.length : (body.total ?? body.metadata?.total ?? -1);
  };
  return {
    workflows: await total('/automation-studio/automations?limit=1'),
    transformations: await total('/transformations?limit=1'),
    templates: await total('/automation-studio/templates?limit=1'),
    forms: await total('/formbuilder/forms?limit=1'),
    mopTemplates: await total('/mop/listTemplates'),
    analyticTemplates: await total('/mop/listAnalyticTemplates'),
    automations: await total('/operations-manager/automations?limit=1'),
    triggers: await total('/operations-manager/triggers?limit=1'),
    prebuilts: await total('/prebuilts'),
  };
}

/** POST /prebuilts/import; a success's body read as the record it answers in `data` ({ status: Created, message, data }). */
async function install(pkg: Package, options?: { overwrite: boolean }) {
  const res = await platform.http('POST', '/prebuilts/import', { token, body: { prebuilt: pkg, ...(options ? { options } : {}) } });
  if (res.status !== 200) return res;
  expect(res.body).toMatchObject({ status: 'Created', message: expect.any(String), data: { _id: expect.any(String) } });
  return { ...res, body: (res.body as { data: unknown }).data };
}

function transformation(name: string): Bundle {
  return { type: 'transformation', data: { name, incoming: [], outgoing: [], steps: [], functions: [] } };
}

/** A workflow bundle going straight from start to end, with `tasks` beside; without an `_id`, as packages ship them, so the studio gives one. */
function workflowBundle(name: string, tasks: Parameters<typeof workflowDocument>[1] = {}): Bundle {
  const { _id: _none, ...data } = workflowDocument(name, tasks, [['workflow_start', 'workflow_end']]);
  return { type: 'workflow', data };
}

const run = FIXTURES_PRESENT ? describe : describe.skip;

run('the 25 fixture projects as prebuilts', () => {
  it('each installs, exports from its live artifacts and uninstalls without leaving anything', async () => {
    const all = projects();
    expect(all).toHaveLength(25);
    const before = await inventory();
    for (const project of all) {
      const pkg = packageOf(project);
      const check = await platform.http('PUT', '/prebuilts/import/validation', { token, body: { prebuilt: pkg } });
      expect(check.body).toMatchObject({ valid: true, errors: [] });
      const res = await install(pkg);
      if (res.status !== 200) throw new Error(`${project.name}: ${res.status} ${JSON.stringify(res.body).slice(0, 600)}`);
      const installed = res.body as Installed;
      expect(installed.metadata).toMatchObject({ name: pkg.metadata.name, version: '1.0.0' });
      expect(installed.components).toHaveLength(project.components.length);
      expect(installed.components.map((c) => c.name).sort()).toEqual(pkg.bundles.map((b) => String(b.data.name)).sort());
      for (const c of installed.components) expect(c.name.startsWith(`@${project._id}: `)).toBe(true);

      const exported = await platform.http('GET', `/prebuilts/${installed._id}/export`, { token });
      expect(exported.status).toBe(200);
      const again = exported.body as Package & { manifest: { artifacts: Component[] } };
      expect(again.metadata.name).toBe(pkg.metadata.name);
      expect(again.bundles.map((b) => `${b.type} ${String(b.data.name)}`).sort()).toEqual(
        pkg.bundles.map((b) => `${b.type} ${String(b.data.name)}`).sort(),
      );
      expect(again.manifest.artifacts.map((a) => a.id).sort()).toEqual(installed.components.map((c) => c.id).sort());

      const removed = await platform.http('DELETE', `/prebuilts/${installed._id}`, { token });
      expect(removed.status).toBe(200);
      expect((await platform.http('GET', `/prebuilts/${installed._id}`, { token })).status).toBe(404);
      expect(await inventory()).toEqual(before);

      // the export installs again as it is: the round trip keeps every artifact
      const reinstalled = await install(again);
      if (reinstalled.status !== 200)
        throw new Error(`${project.name} (exported): ${reinstalled.status} ${JSON.stringify(reinstalled.body).slice(0, 600)}`);
      expect((await platform.http('DELETE', `/prebuilts/${(reinstalled.body as Installed)._id}`, { token })).status).toBe(200);
      expect(await inventory()).toEqual(before);
    }
  }, 600_000);
});

run('the fixture automations as prebuilts', () => {
  it('install after the workflows they start (their projects in the same package), export and uninstall with their triggers', async () => {
    const byId = new Map(projects().map((p) => [p._id, p]));
    const files = readdirSync(FIXTURES)
      .filter((f) => f.includes('_Automations_') && f.endsWith('.json'))
      .sort();
    expect(files).toHaveLength(7);
    const before = await inventory();
    for (const file of files) {
      const automation = JSON.parse(readFileSync(path.join(FIXTURES, file), 'utf8')) as Doc & {
        componentName: string;
        triggers: unknown[];
      };
      const projectId = /^@([0-9a-f]{24}): /.exec(automation.componentName)?.[1] ?? '';
      const project = byId.get(projectId);
      if (project === undefined) throw new Error(`${file}: no fixture project ${projectId}`);
      const pkg = packageOf(project);
      pkg.metadata.name = `${pkg.metadata.name}-${String(automation._id)}`;
      pkg.bundles.push({ type: 'automation', data: automation });
      const res = await install(pkg);
      if (res.status !== 200) throw new Error(`${file}: ${res.status} ${JSON.stringify(res.body).slice(0, 600)}`);
      if (file.startsWith('Apache_Kafka')) {
        // its trigger waits for a Kafka adapter's event, which NAP does not publish: installed disabled, so it cannot fire
        const triggers = (await platform.http('GET', `/operations-manager/triggers?equals[actionId]=${String(automation._id)}`, { token }))
          .body as { data: { type: string; enabled: boolean; topic: string }[] };
        expect(triggers.data).toEqual([expect.objectContaining({ type: 'eventSystem', topic: 'kafka', enabled: false })]);
      }
      const installed = res.body as Installed;
      const mine = installed.components.find((c) => c.type === 'automation');
      expect(mine?.name).toBe(automation.name);
      const during = await inventory();
      expect(during.automations).toBe((before.automations ?? 0) + 1);
      expect(during.triggers).toBe((before.triggers ?? 0) + automation.triggers.length);
      const exported = (await platform.http('GET', `/prebuilts/${installed._id}/export`, { token })).body as Package;
      expect(exported.bundles.find((b) => b.type === 'automation')?.data).toMatchObject({
        name: automation.name,
        componentName: automation.componentName,
      });
      expect((await platform.http('DELETE', `/prebuilts/${installed._id}`, { token })).status).toBe(200);
      expect(await inventory()).toEqual(before);
    }
  });
});

describe('prebuilt installation', () => {
  it('refuses service-catalog and golden-config bundles by name and installs nothing of the package', async () => {
    const before = await inventory();
    const pkg: Package = {
      metadata: { name: '@example/catalog-and-config', version: '1.0.0' },
      bundles: [
        transformation('cc: first'),
        { type: 'service-catalog', data: { name: 'Order a VPN' } },
        { type: 'golden-config', data: { name: 'IOS baseline' } },
        workflowBundle('cc: wf'),
      ],
    };
    const res = await install(pkg);
    expect(res.status).toBe(422);
    const failure = res.body as Failure;
    expect(failure.code).toBe('PREBUILT_BUNDLE_UNSUPPORTED');
    expect(failure.message).toContain('service-catalog');
    expect(failure.message).toContain('golden-config');
    expect(failure.message).toContain('"Order a VPN"');
    expect(failure.details?.map((d) => d.member)).toEqual(['body.prebuilt.bundles[1].type', 'body.prebuilt.bundles[2].type']);
    expect(await inventory()).toEqual(before);
  });

  it('is all or nothing: a refused artifact removes those already created and records nothing', async () => {
    const before = await inventory();
    const broken = workflowBundle('aon: broken');
    broken.data.transitions = { workflow_start: { nowhere: { type: 'standard', state: 'success' } }, workflow_end: {} };
    const res = await install({
      metadata: { name: '@example/all-or-nothing', version: '1.0.0' },
      bundles: [
        transformation('aon: t1'),
        { type: 'mop-analytic-template', data: { name: 'aon: analytic', os: 'cisco-ios' } },
        { type: 'mop-template', data: { name: 'aon: commands', commands: [] } },
        transformation('aon: t2'),
        broken,
      ],
    });
    expect(res.status).toBe(400);
    const failure = res.body as Failure;
    expect(failure.message).toContain('Bundle 4 (workflow "aon: broken")');
    expect(failure.message).toContain('Nothing was installed');
    // each problem names its member in the package sent, not in the studio import the bundle went through
    const members = (failure.details ?? []).map((d) => d.member);
    expect(members.length).toBeGreaterThan(0);
    for (const member of members) expect(member).toMatch(/^body\.prebuilt\.bundles\[4\]\.data\./);
    expect(await inventory()).toEqual(before);
  });

  it("refuses an artifact name that exists unless overwrite, and never takes over another prebuilt's artifact", async () => {
    const mine = await platform.http('POST', '/transformations', {
      token,
      body: { name: 'ow: shared', incoming: [], outgoing: [], steps: [], functions: [] },
    });
    expect(mine.status).toBe(200);
    const pkg: Package = {
      metadata: { name: '@example/overwrite', version: '1.0.0' },
      bundles: [transformation('ow: shared'), transformation('ow: own')],
    };
    const refused = await install(pkg);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'PREBUILT_ARTIFACT_EXISTS', details: [{ member: 'body.prebuilt.bundles[0].data.name' }] });
    expect((await platform.http('GET', '/transformations?equals=ow: own&equalsField=name', { token })).body).toMatchObject({ total: 0 });

    const replaced = await install(pkg, { overwrite: true });
    expect(replaced.status).toBe(200);
    const installed = replaced.body as Installed;
    const shared = installed.components.find((c) => c.name === 'ow: shared');
    expect(shared?.type).toBe('transformation');
    expect((await platform.http('GET', `/transformations/${shared?.id ?? ''}`, { token })).status).toBe(200);

    const other = await install(
      { metadata: { name: '@example/other', version: '1.0.0' }, bundles: [transformation('ow: own')] },
      { overwrite: true },
    );
    expect(other.status).toBe(409);
    expect((other.body as Failure).message).toContain('belongs to prebuilt @example/overwrite');

    const twice = await install(pkg, { overwrite: true });
    expect(twice.status).toBe(409);
    expect(twice.body).toMatchObject({ code: 'PREBUILT_ALREADY_EXISTS' });

    // removing the prebuilt removes what it installed, the overwritten one included
    expect((await platform.http('DELETE', `/prebuilts/${installed._id}`, { token })).status).toBe(200);
    expect((await platform.http('GET', '/transformations?startsWith=ow: &startsWithField=name', { token })).body).toMatchObject({
      total: 0,
    });
  });

  it('upgrades to a newer version: artifacts it no longer has go, new ones come; older or another package is 409', async () => {
    const v1: Package = {
      metadata: { name: '@example/upgrade', version: '1.0.0' },
      bundles: [transformation('up: kept'), transformation('up: dropped')],
    };
    const installed = (await install(v1)).body as Installed;
    const v2: Package = {
      metadata: { name: '@example/upgrade', version: '1.1.0' },
      bundles: [transformation('up: kept'), transformation('up: added'), workflowBundle('up: flow')],
    };

    const older = await platform.http('PUT', `/prebuilts/${installed._id}`, {
      token,
      body: { prebuilt: { ...v2, metadata: { ...v2.metadata, version: '0.9.0' } } },
    });
    expect(older.status).toBe(409);
    expect(older.body).toMatchObject({ code: 'PREBUILT_VERSION_NOT_NEWER' });
    const another = await platform.http('PUT', `/prebuilts/${installed._id}`, {
      token,
      body: { prebuilt: { ...v2, metadata: { name: '@example/else', version: '2.0.0' } } },
    });
    expect(another.status).toBe(409);
    expect((await platform.http('PUT', '/prebuilts/no-such-prebuilt', { token, body: { prebuilt: v2 } })).status).toBe(404);

    const upgraded = await platform.http('PUT', `/prebuilts/${installed._id}`, { token, body: { prebuilt: v2 } });
    expect(upgraded.status).toBe(200);
    const record = upgraded.body as Installed;
    expect(record.metadata.version).toBe('1.1.0');
    expect(record.components.map((c) => c.name).sort()).toEqual(['up: added', 'up: flow', 'up: kept']);
    const names = (
      (await platform.http('GET', '/transformations?startsWith=up: &startsWithField=name', { token })).body as { items: { name: string }[] }
    ).items
      .map((t) => t.name)
      .sort();
    expect(names).toEqual(['up: added', 'up: kept']);

    // a failing upgrade puts the installed version back
    const broken = workflowBundle('up: flow');
    broken.data.transitions = { workflow_start: { nowhere: { type: 'standard', state: 'success' } }, workflow_end: {} };
    const failed = await platform.http('PUT', `/prebuilts/${installed._id}`, {
      token,
      body: { prebuilt: { metadata: { name: '@example/upgrade', version: '2.0.0' }, bundles: [transformation('up: kept'), broken] } },
    });
    expect(failed.status).toBe(400);
    const after = (await platform.http('GET', `/prebuilts/${installed._id}`, { token })).body as Installed;
    expect(after.metadata.version).toBe('1.1.0');
    const exported = (await platform.http('GET', `/prebuilts/${installed._id}/export`, { token })).body as Package;
    expect(exported.bundles.map((b) => String(b.data.name)).sort()).toEqual(['up: added', 'up: flow', 'up: kept']);
    expect((await platform.http('DELETE', `/prebuilts/${installed._id}`, { token })).status).toBe(200);
  });

  it('validates without installing: unknown types, clashes and missing child workflows', async () => {
    const before = await inventory();
    const child = workflowBundle('val: parent', {
      abc1: task('childJob', { workflow: 'val: nowhere', variables: {} }, {}, { type: 'operation' }),
      abc2: task('transformation', { tr_id: 'no-such-transformation', variableMap: {} }, {}, { type: 'operation' }),
      abc3: task('transformation', { tr_id: '$var.job.trId', variableMap: {} }, {}, { type: 'operation' }),
    });
    const res = await platform.http('PUT', '/prebuilts/import/validation', {
      token,
      body: {
        prebuilt: {
          metadata: { name: '@example/validate', version: '1.0.0' },
          bundles: [child, { type: 'golden-config', data: { name: 'gc' } }],
        },
      },
    });
    expect(res.status).toBe(200);
    const validation = res.body as {
      valid: boolean;
      errors: string[];
      warnings: string[];
      problems: { severity: string; member: string }[];
    };
    expect(validation.valid).toBe(false);
    expect(validation.errors.join(' ')).toContain('golden-config');
    expect(validation.warnings.join(' ')).toContain('"val: nowhere"');
    expect(validation.warnings.join(' ')).toContain('"no-such-transformation"');
    expect(validation.warnings).toHaveLength(2);
    expect(await inventory()).toEqual(before);

    const fine = await platform.http('PUT', '/prebuilts/import/validation', {
      token,
      body: { prebuilt: { metadata: { name: '@example/validate', version: '1.0.0' }, bundles: [transformation('val: t')] } },
    });
    expect(fine.body).toEqual({ valid: true, errors: [], warnings: [], problems: [] });
  });

  describe('metadata.IAPDependencies', () => {
    // as Itential's Kentik REST example declares them: three applications the platform has, three adapters it has not
    const KENTIK = {
      '@itential/app-operations_manager': '',
      '@itential/app-json_forms': '',
      '@itential/app-workflow_engine': '',
      '@itentialopensource/adapter-netbox_v33': '',
      '@itentialopensource/adapter-servicenow': '',
      '@itentialopensource/adapter-msteams': '',
    };
    const kentik = (dependencies: Record<string, string>, version = '1.0.0'): Package => ({
      metadata: { name: '@example/kentik-rest-example', version, IAPDependencies: dependencies },
      bundles: [transformation('kentik: t')],
    });
    const member = (name: string) => `body.prebuilt.metadata.IAPDependencies["${name}"]`;
    const missingAdapters = [
      '@itentialopensource/adapter-netbox_v33: the platform has no adapter of model @itentialopensource/adapter-netbox_v33 (POST /adapters with that model)',
      '@itentialopensource/adapter-servicenow: the platform has no adapter of model @itentialopensource/adapter-servicenow (POST /adapters with that model)',
      '@itentialopensource/adapter-msteams: the platform has no adapter of model @itentialopensource/adapter-msteams (POST /adapters with that model)',
    ];

    it('names each adapter the platform lacks in the validation, not the applications it has', async () => {
      const res = await platform.http('PUT', '/prebuilts/import/validation', { token, body: { prebuilt: kentik(KENTIK) } });
      expect(res.body).toMatchObject({ valid: false, errors: missingAdapters, warnings: [] });
      expect((res.body as { problems: { member: string }[] }).problems.map((p) => p.member)).toEqual([
        member('@itentialopensource/adapter-netbox_v33'),
        member('@itentialopensource/adapter-servicenow'),
        member('@itentialopensource/adapter-msteams'),
      ]);
    });

    it('names an application it has not, and versions outside the range given (semver), and takes what satisfies it', async () => {
      const created = await platform.http('POST', '/adapters', {
        token,
        body: {
          properties: {
            name: 'snow-dep',
            type: 'Adapter',
            model: '@itentialopensource/adapter-servicenow',
            version: '2.4.1',
            properties: { id: 'snow-dep', type: 'HTTP', properties: { server: { protocol: 'http', host: '127.0.0.1', port: 9 } } },
          },
        },
      });
      expect(created.status).toBe(200);
      try {
        const res = await platform.http('PUT', '/prebuilts/import/validation', {
          token,
          body: {
            prebuilt: kentik({
              '@itential/app-workflow_engine': '^9.1.0',
              '@itential/app-lifecycle_manager': '',
              '@itentialopensource/adapter-servicenow': '^2.2.0',
              '@example/needed-prebuilt': '>=1.0.0',
            }),
          },
        });
        expect((res.body as { errors: string[] }).errors).toEqual([
          '@itential/app-workflow_engine ^9.1.0: application WorkFlowEngine is version 2026.1.0, which does not satisfy ^9.1.0',
          '@itential/app-lifecycle_manager: the platform has no application lifecycle_manager',
          '@example/needed-prebuilt >=1.0.0: the platform has no prebuilt @example/needed-prebuilt installed',
        ]);
        const outside = await platform.http('PUT', '/prebuilts/import/validation', {
          token,
          body: { prebuilt: kentik({ '@itentialopensource/adapter-servicenow': '^3.0.0' }) },
        });
        expect((outside.body as { errors: string[] }).errors).toEqual([
          '@itentialopensource/adapter-servicenow ^3.0.0: adapter "snow-dep" is version 2.4.1, which does not satisfy ^3.0.0',
        ]);
      } finally {
        await platform.http('DELETE', '/adapters/snow-dep', { token });
      }
    });

    it('refuses the import with 409 naming them, installing nothing; options.ignoreDependencies installs it and the record lists them', async () => {
      const before = await inventory();
      const refused = await platform.http('POST', '/prebuilts/import', { token, body: { prebuilt: kentik(KENTIK) } });
      expect(refused.status).toBe(409);
      const failure = refused.body as Failure;
      expect(failure.code).toBe('PREBUILT_DEPENDENCY_MISSING');
      for (const name of ['adapter-netbox_v33', 'adapter-servicenow', 'adapter-msteams']) expect(failure.message).toContain(name);
      expect(failure.message).toContain('options.ignoreDependencies');
      expect(failure.details?.map((d) => d.member)).toEqual([
        member('@itentialopensource/adapter-netbox_v33'),
        member('@itentialopensource/adapter-servicenow'),
        member('@itentialopensource/adapter-msteams'),
      ]);
      expect(await inventory()).toEqual(before);

      const validation = await platform.http('PUT', '/prebuilts/import/validation', {
        token,
        body: { prebuilt: kentik(KENTIK), options: { ignoreDependencies: true } },
      });
      expect(validation.body).toMatchObject({ valid: true, errors: [], warnings: missingAdapters });

      const forced = await platform.http('POST', '/prebuilts/import', {
        token,
        body: { prebuilt: kentik(KENTIK), options: { ignoreDependencies: true } },
      });
      expect(forced.status).toBe(200);
      const installed = (forced.body as { data: Installed & { missingDependencies: { name: string; kind: string; message: string }[] } })
        .data;
      expect(installed.missingDependencies.map((d) => [d.name, d.kind])).toEqual([
        ['@itentialopensource/adapter-netbox_v33', 'adapter'],
        ['@itentialopensource/adapter-servicenow', 'adapter'],
        ['@itentialopensource/adapter-msteams', 'adapter'],
      ]);
      expect((await platform.http('GET', `/prebuilts/${installed._id}`, { token })).body).toMatchObject({
        missingDependencies: installed.missingDependencies,
      });
      expect((await platform.http('DELETE', `/prebuilts/${installed._id}`, { token })).status).toBe(200);
    });
  });

  it('rolls back an installation a crash left unfinished before the package is installed again, and never lists it', async () => {
    const leftover = await platform.http('POST', '/transformations', {
      token,
      body: { name: 'crash: half', incoming: [], outgoing: [], steps: [], functions: [] },
    });
    expect(leftover.status).toBe(200);
    const leftoverId = (leftover.body as { _id: string })._id;
    const prebuilts = platform.stores.get('admin')?.collection('prebuilts');
    if (prebuilts === undefined) throw new Error('no admin store');
    // the journal of an installation whose process died an hour ago, and of one running now
    await prebuilts.insertOne({
      metadata: { name: '@example/crashed', version: '1.0.0' },
      manifest: {},
      readme: '',
      components: [{ id: leftoverId, name: 'crash: half', type: 'transformation' }],
      installing: { startedAt: Date.now() - 3_600_000 },
    });
    await prebuilts.insertOne({
      metadata: { name: '@example/running', version: '1.0.0' },
      manifest: {},
      readme: '',
      components: [],
      installing: { startedAt: Date.now() },
    });
    const listed = (await platform.http('GET', '/prebuilts?limit=500', { token })).body as { results: Installed[] };
    expect(listed.results.map((p) => p.metadata.name)).not.toEqual(expect.arrayContaining(['@example/crashed']));
    expect(listed.results.map((p) => p.metadata.name)).not.toEqual(expect.arrayContaining(['@example/running']));

    const res = await install({
      metadata: { name: '@example/crashed', version: '1.0.0' },
      bundles: [transformation('crash: half'), transformation('crash: whole')],
    });
    expect(res.status).toBe(200);
    expect((await platform.http('GET', `/transformations/${leftoverId}`, { token })).status).toBe(404);
    expect((res.body as Installed).components.map((c) => c.name).sort()).toEqual(['crash: half', 'crash: whole']);
    // one still running is not touched: its name stays taken
    expect((await install({ metadata: { name: '@example/running', version: '1.0.0' }, bundles: [] })).status).toBe(409);
    expect((await platform.http('DELETE', `/prebuilts/${(res.body as Installed)._id}`, { token })).status).toBe(200);
  });

  it('answers 400 naming the member for a malformed package and 404 for an unknown id', async () => {
    const noVersion = await install({ metadata: { name: '@example/bad' } as Package['metadata'], bundles: [] });
    expect(noVersion.status).toBe(400);
    expect(JSON.stringify(noVersion.body)).toContain('version');
    const badVersion = await install({ metadata: { name: '@example/bad', version: 'latest' }, bundles: [] });
    expect(badVersion.status).toBe(400);
    expect((badVersion.body as Failure).details?.[0]?.member).toBe('body.prebuilt.metadata.version');
    const noName = await install({
      metadata: { name: '@example/bad', version: '1.0.0' },
      bundles: [{ type: 'transformation', data: { steps: [] } }],
    });
    expect(noName.status).toBe(400);
    expect((noName.body as Failure).details?.[0]?.member).toBe('body.prebuilt.bundles[0].data.name');
    const badOption = await platform.http('POST', '/prebuilts/import', {
      token,
      body: { prebuilt: { metadata: { name: '@example/bad', version: '1.0.0' }, bundles: [] }, options: { force: true } },
    });
    expect(badOption.status).toBe(400);

    // a template mop itself refuses (a name it cannot show): named as the package's member, not mop's body.mop / body.template
    const before = await inventory();
    for (const [type, member] of [
      ['mop-template', 'body.prebuilt.bundles[1].data'],
      ['mop-analytic-template', 'body.prebuilt.bundles[1].data'],
    ] as const) {
      const refused = await install({
        metadata: { name: '@example/mop-refused', version: '1.0.0' },
        bundles: [transformation(`mop-refused: ${type}`), { type, data: { name: `mop-refused: bell\u0007`, commands: [] } }],
      });
      expect(refused.status).toBe(400);
      const failure = refused.body as Failure;
      expect(failure.code).toBe('VALIDATION_FAILED');
      expect(failure.details?.map((d) => d.member)).toEqual([`${member}.name`]);
      expect(failure.message).toContain(`Bundle 1 (${type} "mop-refused: bell\u0007") was refused by mop`);
      expect(failure.message).toContain(`${member}.name`);
      expect(JSON.stringify(failure)).not.toMatch(/body\.(mop|template)\b/);
    }
    expect(await inventory()).toEqual(before);

    for (const [method, route] of [
      ['GET', '/prebuilts/nope'],
      ['GET', '/prebuilts/nope/export'],
      ['DELETE', '/prebuilts/nope'],
    ] as const) {
      const res = await platform.http(method, route, { token });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'PREBUILT_NOT_FOUND' });
    }
  });
});
