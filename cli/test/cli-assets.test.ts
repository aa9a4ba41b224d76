import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { NapHome } from './support/nap';
import { createHome, FIXTURES, napInProcess, profileSection } from './support/nap';
import type { Platform } from './support/platform';
import { startPlatform } from './support/platform';

// Two platforms, "staging" and "production", shared by every test of the file.
let staging: Platform;
let production: Platform;
let home: NapHome;
let work: string;

const fixture = (name: string): string => path.join(FIXTURES, name);
const run = (args: string[], cwd?: string) => napInProcess(args, { env: home.env, ...(cwd === undefined ? {} : { cwd }) });

beforeAll(async () => {
  [staging, production] = await Promise.all([startPlatform('staging-password'), startPlatform('production-password')]);
  home = createHome();
  home.writeIpctlConfig(
    `[application]\ndefault_profile = staging\n\n${profileSection('staging', staging.port, staging.password)}\n${profileSection('production', production.port, production.password)}`,
  );
  work = mkdtempSync(path.join(os.tmpdir(), 'nap-cli-assets-'));
}, 120_000);

afterAll(async () => {
  await Promise.all([staging?.stop(), production?.stop()]);
  if (home !== undefined) rmSync(home.home, { recursive: true, force: true });
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe('every verb on workflows', () => {
  it('creates, gets, describes, exports, deletes and re-imports a workflow', async () => {
    const created = await run(['create', 'workflow', '-f', fixture('cli-complete.workflow.json')]);
    expect(created).toMatchObject({ code: 0, stderr: '' });
    expect(created.stdout).toMatch(/^created workflow "cli-complete" \(/);

    const list = await run(['get', 'workflows']);
    expect(list.code).toBe(0);
    expect(list.stdout.split('\n')[0]).toMatch(/^NAME\s+DESCRIPTION\s+TASKS\s+ID$/);
    expect(list.stdout).toMatch(/^cli-complete\s+cli-complete\s+2\s+\S+$/m);

    const one = await run(['get', 'workflow', 'cli-complete', '-o', 'json']);
    const doc = one.json<{ _id: string; name: string }>();
    expect(doc.name).toBe('cli-complete');
    const byId = await run(['describe', 'workflow', doc._id, '-o', 'yaml']);
    expect(byId.stdout).toContain('name: cli-complete');
    const human = await run(['describe', 'workflow', 'cli-complete']);
    expect(human.stdout).toMatch(/^tasks:$/m);

    // not a terminal: the export goes to stdout, as the platform answered it
    const exported = await run(['export', 'workflow', 'cli-complete']);
    expect(JSON.parse(exported.stdout)).toMatchObject({ _id: doc._id, name: 'cli-complete', tasks: { a1: { name: 'newVariable' } } });
    const toDir = await run(['export', 'workflow', 'cli-complete', '--path', path.join(work, 'out')]);
    expect(toDir.code).toBe(0);
    expect(JSON.parse(readFileSync(path.join(work, 'out', 'cli-complete.workflow.json'), 'utf8'))).toMatchObject({ name: 'cli-complete' });

    const again = await run(['import', 'workflow', path.join(work, 'out')]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(
      /^nap: workflow "cli-complete" already exists on http:\/\/127\.0\.0\.1:\d+; add --replace to overwrite it\n$/,
    );
    const replaced = await run(['import', 'workflow', path.join(work, 'out', 'cli-complete.workflow.json'), '--replace']);
    expect(replaced).toMatchObject({ code: 0, stdout: expect.stringContaining('imported workflow "cli-complete"') as unknown });

    const deleted = await run(['delete', 'workflow', 'cli-complete']);
    expect(deleted.stdout).toMatch(/^deleted workflow "cli-complete"/);
    const gone = await run(['describe', 'workflow', 'cli-complete']);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/^nap: workflow "cli-complete" not found on http:\/\/127\.0\.0\.1:\d+; `nap get workflows` lists them\n$/);
    expect((await run(['import', 'workflows', fixture('cli-complete.workflow.json')])).code).toBe(0);
  });
});

describe('other resources', () => {
  it('manages transformations, groups (from YAML), devices and roles', async () => {
    expect((await run(['create', 'transformation', '-f', fixture('cli-tr.transformation.json')])).code).toBe(0);
    expect((await run(['get', 'jst', 'cli-tr'])).stdout).toMatch(/^cli-tr\s+standalone\s+\S+$/m);

    const group = await run(['create', 'group', '-f', fixture('cli-group.group.yaml'), '-o', 'json']);
    expect(group.json()).toMatchObject({ name: 'cli-operators', roles: ['operations'] });
    expect((await run(['get', 'groups'])).stdout).toMatch(/^cli-operators\s+operations\s+runs automations from CI\s+\S+$/m);
    expect((await run(['delete', 'group', 'cli-operators'])).code).toBe(0);

    expect((await run(['create', 'device', '-f', fixture('cli-device.device.json')])).stdout).toBe('created device "cli-edge-1"\n');
    // the platform's create route updates a device that exists; nap says which it did
    expect((await run(['create', 'device', '-f', fixture('cli-device.device.json')])).stdout).toBe('updated device "cli-edge-1"\n');
    const device = await run(['describe', 'device', 'cli-edge-1', '-o', 'json']);
    expect(device.json()).toMatchObject({ name: 'cli-edge-1', variables: { gw_host: '192.0.2.10', gw_password: '********' } });
    expect((await run(['get', 'device-groups'])).stdout).toMatch(/^edge\s+cli-edge-1/m);
    expect((await run(['delete', 'device', 'cli-edge-1'])).stdout).toMatch(/^deleted device "cli-edge-1"/);

    // trusted host keys: pinned through the API, listed, forgotten
    const fingerprint = `SHA256:${'A'.repeat(43)}`;
    expect((await run(['api', 'put', '/gw/knownHosts/192.0.2.10:22', '-d', JSON.stringify({ fingerprint })])).code).toBe(0);
    expect((await run(['get', 'known-hosts'])).stdout).toMatch(new RegExp(`^192\\.0\\.2\\.10:22\\s+${fingerprint}\\s+\\S+$`, 'm'));
    expect((await run(['delete', 'known-host', '192.0.2.10:22'])).stdout).toBe('deleted known-host "192.0.2.10:22"\n');
    expect((await run(['delete', 'known-host', '192.0.2.10:22'])).stderr).toMatch(/^nap: known-host "192\.0\.2\.10:22" not found/);

    const roles = await run(['get', 'roles', '-o', 'json']);
    expect(roles.json<{ name: string }[]>().map((r) => r.name)).toEqual(expect.arrayContaining(['admin', 'operations']));
    expect((await run(['describe', 'role', 'apiread'])).stdout).toContain('name: apiread');
  });

  it('says in one line, with exit 4, where the platform has no route for a verb', async () => {
    for (const [args, message] of [
      [['delete', 'method', 'getJobs'], /^nap: nap delete method: methods are the platform's operations/],
      [['create', 'job', '-f', fixture('cli-complete.workflow.json')], /^nap: nap create job: jobs are started, not created/],
      [['copy', 'job', 'x', '--to', 'production'], /^nap: nap copy job: jobs cannot be copied/],
    ] as const) {
      const res = await run([...args]);
      expect(res.code).toBe(4);
      expect(res.stderr).toMatch(message);
      expect(res.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});

describe('between platforms', () => {
  it('copies a workflow from staging to production, and refuses to overwrite without --replace', async () => {
    const copied = await run(['copy', 'workflow', 'cli-complete', '--from', 'staging', '--to', 'production']);
    expect(copied.stdout).toMatch(/^copied workflow "cli-complete" .*from staging \(http:\/\/127\.0\.0\.1:\d+\) to production/);
    const there = await run(['get', 'workflow', 'cli-complete', '--profile', 'production', '-o', 'json']);
    expect(there.json()).toMatchObject({ name: 'cli-complete' });
    const twice = await run(['copy', 'workflow', 'cli-complete', '--from', 'staging', '--to', 'production']);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain('already exists');
    expect((await run(['copy', 'workflow', 'cli-complete', '--to', 'production', '--replace'])).code).toBe(0);
  });

  it('imports from a pipe: an export changed on its way (nap export … | jq … | nap import … -)', async () => {
    const exported = await run(['export', 'workflow', 'cli-complete']);
    expect(exported.code).toBe(0);
    const doc = JSON.parse(exported.stdout) as { _id: string; description?: string };
    const changed = JSON.stringify({ ...doc, description: 'through a pipe' });
    const piped = await napInProcess(['import', 'workflow', '-', '--replace', '--profile', 'production'], {
      env: home.env,
      input: changed,
    });
    expect(piped).toMatchObject({ code: 0, stderr: '' });
    expect(piped.stdout).toMatch(/^imported workflow "cli-complete" \(\S+\), updating the one there in place\n$/);
    const there = await run(['get', 'workflow', 'cli-complete', '--profile', 'production', '-o', 'json']);
    expect(there.json()).toMatchObject({ name: 'cli-complete', description: 'through a pipe' });
    // what it holds is checked as a file's is, named stdin
    const nameless = await napInProcess(['import', 'workflow', '-'], { env: home.env, input: '[{"description":"x"}]' });
    expect(nameless).toMatchObject({
      code: 4,
      stderr: 'nap: a workflow document without a name cannot be imported (stdin); nothing was imported\n',
    });
  });

  it('says whose _id a renamed export carries when the platform refuses it for that id', async () => {
    const exported = (await run(['export', 'workflow', 'cli-complete'])).stdout;
    const renamed = JSON.stringify({ ...(JSON.parse(exported) as object), name: 'cli-complete-2' });
    const res = await napInProcess(['import', 'workflow', '-'], { env: home.env, input: renamed });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(
      /^nap: http:\/\/127\.0\.0\.1:\d+ refused workflow "cli-complete-2": .+; the file's _id \S+ is that of workflow "cli-complete" there: leave _id out of the file to import it as another workflow\n$/,
    );
    expect((await run(['get', 'workflow', 'cli-complete-2'])).code).toBe(1);
  });

  it('copies an automation with its triggers from staging to production', async () => {
    const imported = await run(['import', 'automation', fixture('cli-nightly.automation.json')]);
    expect(imported.code).toBe(0);
    // the platform took the Kafka trigger in disabled (it publishes no such event), and says so
    expect(imported.stderr).toContain(
      'note: trigger "On a Kafka message" was imported disabled: "kafka" of "@itentialopensource/adapter-kafkav2" is no event this platform publishes',
    );
    const copied = await run(['copy', 'automation', 'cli-nightly', '--from', 'staging', '--to', 'production']);
    expect(copied.code).toBe(0);
    const triggers = await run(['get', 'triggers', '--profile', 'production', '-o', 'json']);
    expect(
      triggers
        .json<{ _id: string; name: string; type: string; actionId: string }[]>()
        .map((t) => [t._id, t.name, t.type, t.actionId])
        .sort(),
    ).toEqual([
      ['cli-nightly-by-hand', 'By hand', 'manual', 'cli-nightly-automation'],
      ['cli-nightly-from-ci', 'From CI', 'endpoint', 'cli-nightly-automation'],
      ['cli-nightly-on-kafka', 'On a Kafka message', 'eventSystem', 'cli-nightly-automation'],
    ]);
  });

  it('moves a project from staging to production through a Git repository', async () => {
    const repo = path.join(work, 'assets.git');
    execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', repo]);
    const imported = await run(['import', 'project', fixture('cli-project.project.json')]);
    expect(imported.stdout).toMatch(/^imported project "cli-project"/);
    const project = await run(['describe', 'project', 'cli-project', '-o', 'json']);
    expect(project.json()).toMatchObject({ name: 'cli-project', components: [{ type: 'workflow' }, { type: 'transformation' }] });
    // its members are named "@<project id>: <name>": the name alone is not theirs, and nap says whose it is
    const byPlainName = await run(['run', 'workflow', 'turn up']);
    expect(byPlainName.code).toBe(1);
    expect(byPlainName.stderr).toMatch(
      /^nap: workflow "turn up" not found on \S+; a project has it: "@\w+: turn up" \(project cli-project\)\n$/,
    );

    const exported = await run(['export', 'project', 'cli-project', '--repository', repo, '--reference', 'main', '--path', 'projects']);
    expect(exported.code).toBe(0);
    expect(exported.stderr).toMatch(
      /^exported project "cli-project" .*to projects\/cli-project\.project\.json in .*assets\.git \(main\)\n$/,
    );
    expect(
      (await run(['export', 'workflow', 'cli-complete', '--repository', repo, '--reference', 'main', '--path', 'workflows'])).code,
    ).toBe(0);

    const clone = path.join(work, 'clone');
    execFileSync('git', ['clone', '--quiet', repo, clone]);
    expect(existsSync(path.join(clone, 'projects', 'cli-project.project.json'))).toBe(true);
    const log = execFileSync('git', ['log', '--format=%s'], { cwd: clone, encoding: 'utf8' });
    expect(log).toContain('nap export project "cli-project"');

    const intoProduction = await run([
      'import',
      'project',
      'projects/cli-project.project.json',
      '--repository',
      repo,
      '--reference',
      'main',
      '--profile',
      'production',
    ]);
    expect(intoProduction).toMatchObject({ code: 0, stdout: expect.stringContaining('imported project "cli-project"') as unknown });
    const inProduction = await run(['get', 'projects', '--profile', 'production']);
    expect(inProduction.stdout).toMatch(/^cli-project\s+moves between platforms through Git\s+2\s+\S+$/m);
    // a folder of the repository: every <name>.workflow.json in it
    const folder = await run(['import', 'workflows', 'workflows', '--repository', repo, '--profile', 'production', '--replace']);
    expect(folder.code).toBe(0);

    const missingBranch = await run([
      'import',
      'project',
      'projects/cli-project.project.json',
      '--repository',
      repo,
      '--reference',
      'nope',
    ]);
    expect(missingBranch.code).toBe(1);
    expect(missingBranch.stderr).toMatch(/^nap: branch "nope" of .* cannot be read/);

    // the path without its folder: said of the repository and branch, with the files of the kind it holds
    const withoutFolder = await run(['import', 'project', 'cli-project.project.json', '--repository', repo, '--reference', 'main']);
    expect(withoutFolder.code).toBe(4);
    expect(withoutFolder.stderr).toBe(
      `nap: cli-project.project.json: no such file or folder in branch "main" of ${repo} (the path is from the repository's root); its project files: projects/cli-project.project.json\n`,
    );
  });

  it('reads and writes a cloned repository only inside it: links that lead out of it are not followed', async () => {
    // what a repository someone else commits to may hold: links to the caller's own files
    const outside = path.join(work, 'outside');
    mkdirSync(outside);
    writeFileSync(path.join(outside, 'stolen.workflow.json'), '{"name": "not the repository\'s"}\n');
    writeFileSync(path.join(outside, 'victim.txt'), 'kept\n');
    const repo = path.join(work, 'links.git');
    const tree = path.join(work, 'links');
    execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', repo]);
    execFileSync('git', ['init', '--quiet', '--initial-branch=main', tree]);
    symlinkSync(outside, path.join(tree, 'secrets'));
    mkdirSync(path.join(tree, 'workflows'));
    symlinkSync(path.join(outside, 'stolen.workflow.json'), path.join(tree, 'workflows', 'stolen.workflow.json'));
    symlinkSync(outside, path.join(tree, 'out'));
    mkdirSync(path.join(tree, 'exp'));
    symlinkSync(path.join(outside, 'victim.txt'), path.join(tree, 'exp', 'cli-complete.workflow.json'));
    symlinkSync(path.join(outside, 'not-yet'), path.join(tree, 'nowhere'));
    const git = (args: string[]): string =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@localhost', ...args], { cwd: tree, encoding: 'utf8' });
    git(['add', '--all']);
    git(['commit', '--quiet', '-m', 'links']);
    git(['push', '--quiet', repo, 'HEAD:refs/heads/main']);
    const inRepo = ['--repository', repo, '--reference', 'main'];

    for (const [args, stderr] of [
      [
        ['import', 'workflows', 'secrets'],
        'secrets goes through a symbolic link that leads outside the repository: nap does not follow it',
      ],
      [
        ['import', 'workflows', 'workflows'],
        'workflows/stolen.workflow.json goes through a symbolic link that leads outside the repository: nap does not follow it',
      ],
      [['import', 'workflow', '../links.git/HEAD'], '../links.git/HEAD is outside the repository'],
      [
        ['export', 'workflow', 'cli-complete', '--path', 'out'],
        '--path out goes through a symbolic link that leads outside the repository: nap does not follow it',
      ],
      [
        ['export', 'workflow', 'cli-complete', '--path', 'exp'],
        'exp/cli-complete.workflow.json goes through a symbolic link that leads outside the repository: nap does not follow it',
      ],
      [
        ['export', 'workflow', 'cli-complete', '--path', 'nowhere/deeper'],
        '--path nowhere/deeper goes through a symbolic link in the repository that leads to nothing: nap does not follow it',
      ],
      // a sibling of the clone's folder whose name starts with the clone's: outside by path segments
      [['export', 'workflow', 'cli-complete', '--path', '../repo-next-door'], '--path ../repo-next-door is outside the repository'],
      [['export', 'workflow', 'cli-complete', '--path', '.git/hooks'], '--path .git/hooks is inside the .git folder of the repository'],
    ] as const) {
      const res = await run([...args, ...inRepo]);
      expect({ args, code: res.code, stderr: res.stderr }).toEqual({ args, code: 4, stderr: `nap: ${stderr}\n` });
    }
    expect(readdirSync(outside).sort()).toEqual(['stolen.workflow.json', 'victim.txt']);
    expect(readFileSync(path.join(outside, 'victim.txt'), 'utf8')).toBe('kept\n');
    // the repository is unchanged: nothing was pushed
    expect(execFileSync('git', ['log', '--format=%s', 'main'], { cwd: repo, encoding: 'utf8' })).toBe('links\n');
  });

  it('names the flag of a profile that no file has', async () => {
    for (const [args, flag] of [
      [['copy', 'workflow', 'cli-complete', '--from', 'stage', '--to', 'production'], '--from stage'],
      [['copy', 'workflow', 'cli-complete', '--to', 'prod'], '--to prod'],
    ] as const) {
      const res = await run([...args]);
      expect(res.code).toBe(4);
      expect(res.stderr).toMatch(new RegExp(`^nap: ${flag}: profile "\\w+" is not in .*; name one of them with ${flag.split(' ')[0]}\n$`));
    }
  });
});
