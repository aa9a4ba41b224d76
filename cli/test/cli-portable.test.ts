import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { NapHome } from './support/nap';
import { createHome, FIXTURES, napInProcess, profileSection } from './support/nap';
import type { Platform } from './support/platform';
import { startPlatform } from './support/platform';

/**
 * The resources the platform has no export or import route for (integrations, accounts, groups,
 * devices, device groups), which `nap` exports, imports and copies in its own portable form; the
 * verbs served through another route (create project, create prebuilt, export job); and the
 * refusals that stay (methods, jobs). Two platforms, "staging" and "production", shared by the file.
 */
let staging: Platform;
let production: Platform;
let home: NapHome;
let work: string;

const fixture = (name: string): string => path.join(FIXTURES, name);
const run = (args: string[], env: NodeJS.ProcessEnv = {}) => napInProcess(args, { env: { ...home.env, ...env } });
const onProduction = (args: string[], env: NodeJS.ProcessEnv = {}) => run([...args, '--profile', 'production'], env);
const json = <T = Record<string, unknown>>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;
const writeJson = (file: string, doc: unknown): string => {
  writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`);
  return file;
};
const SERVER_OWNED = ['_id', 'created', 'createdBy', 'lastUpdated', 'lastUpdatedBy', 'updated', 'updatedBy', 'version'];

beforeAll(async () => {
  [staging, production] = await Promise.all([startPlatform('staging-password'), startPlatform('production-password')]);
  home = createHome();
  home.writeIpctlConfig(
    `[application]\ndefault_profile = staging\n\n${profileSection('staging', staging.port, staging.password)}\n${profileSection('production', production.port, production.password)}`,
  );
  work = mkdtempSync(path.join(os.tmpdir(), 'nap-cli-portable-'));
}, 120_000);

afterAll(async () => {
  await Promise.all([staging?.stop(), production?.stop()]);
  if (home !== undefined) rmSync(home.home, { recursive: true, force: true });
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe('integrations', () => {
  it('exports one without its secrets, copies it with --secret-from-env, and --replace keeps the stored secret', async () => {
    for (const target of [run, onProduction])
      expect((await target(['create', 'integration-model', '-f', fixture('cli-petstore.integration-model.json')])).code).toBe(0);
    expect((await run(['create', 'integration', '-f', fixture('cli-pets.integration.json')])).code).toBe(0);

    const exported = await run(['export', 'integration', 'cli-pets']);
    expect(exported.code).toBe(0);
    const doc = JSON.parse(exported.stdout) as Record<string, unknown>;
    expect(doc).toEqual({
      name: 'cli-pets',
      model: 'CliPetstore:1.0.0',
      type: 'Application',
      properties: {
        authentication: { type: 'basic', username: 'pets' },
        timeoutMs: 5000,
        server: { protocol: 'http', host: '127.0.0.1', port: 9, base_path: '/api' },
      },
      omittedSecrets: ['properties.authentication.password'],
    });
    expect(exported.stdout).not.toContain('********');
    expect(exported.stdout).not.toContain('pets-secret-1');
    expect(exported.stderr).toBe(
      'integration "cli-pets": its secrets are not exported (properties.authentication.password); give them on import with --secret-from-env MEMBER=VAR\n',
    );

    // the platform refuses basic authentication without a password: nap says which flag gives it
    const bare = await run(['copy', 'integration', 'cli-pets', '--to', 'production']);
    expect(bare.code).toBe(1);
    expect(bare.stderr).toMatch(/^nap: POST \/integrations failed: .*password is required for basic authentication/);
    expect(bare.stderr).toContain('give it with --secret-from-env properties.authentication.password=VAR');
    expect(bare.stderr.trim().split('\n')).toHaveLength(1);
    expect((await onProduction(['get', 'integrations', '-o', 'json'])).json()).toEqual([]);

    const unset = await run([
      'copy',
      'integration',
      'cli-pets',
      '--to',
      'production',
      '--secret-from-env',
      'properties.authentication.password=PETS_PW',
    ]);
    expect(unset).toMatchObject({ code: 4, stderr: 'nap: --secret-from-env PETS_PW: the environment variable PETS_PW is not set\n' });

    const copied = await run(
      ['copy', 'integration', 'cli-pets', '--to', 'production', '--secret-from-env', 'properties.authentication.password=PETS_PW'],
      { PETS_PW: 'pets-secret-2' },
    );
    expect(copied).toMatchObject({ code: 0, stderr: '' });
    expect(copied.stdout).toMatch(/^copied integration "cli-pets" from staging \(http:\/\/127\.0\.0\.1:\d+\) to production/);
    const there = (await onProduction(['describe', 'integration', 'cli-pets', '-o', 'json'])).json();
    expect(there).toMatchObject({ model: 'CliPetstore:1.0.0', properties: { authentication: { username: 'pets', password: '********' } } });

    // an edited export replaces the integration in place; the password stored there stays
    const file = writeJson(path.join(work, 'cli-pets.integration.json'), {
      ...doc,
      properties: { ...(doc.properties as object), authentication: { type: 'basic', username: 'pets-admin' }, timeoutMs: 9000 },
    });
    const conflict = await onProduction(['import', 'integration', file]);
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toMatch(
      /^nap: integration "cli-pets" already exists on http:\/\/127\.0\.0\.1:\d+; add --replace to overwrite it\n$/,
    );
    const replaced = await onProduction(['import', 'integration', file, '--replace']);
    expect(replaced).toMatchObject({ code: 0, stdout: 'imported integration "cli-pets"\n' });
    expect((await onProduction(['describe', 'integration', 'cli-pets', '-o', 'json'])).json()).toMatchObject({
      properties: { authentication: { type: 'basic', username: 'pets-admin', password: '********' }, timeoutMs: 9000 },
    });
  });
});

describe('groups and accounts', () => {
  it('copies a group, then an account with its groups by name and a password from the environment', async () => {
    expect((await run(['create', 'group', '-f', fixture('cli-group.group.yaml')])).code).toBe(0);
    const group = (await run(['export', 'group', 'cli-operators'])).json();
    expect(group).toEqual({ name: 'cli-operators', description: 'runs automations from CI', roles: ['operations'] });

    // an account in the portable form: groups by name, created with a password from the environment
    const accountFile = writeJson(path.join(work, 'cli-bot.account.json'), {
      username: 'cli-bot',
      firstname: 'Build',
      email: 'ci@example.net',
      groups: ['cli-operators'],
      inactive: false,
    });
    const imported = await run(['import', 'account', accountFile, '--password-from-env', 'BOT_PW'], { BOT_PW: 'bot-password-1' });
    expect(imported).toMatchObject({ code: 0, stdout: 'imported account "cli-bot"\n', stderr: '' });
    const account = (await run(['get', 'account', 'cli-bot', '-o', 'json'])).json<{ _id: string; roles: string[] }>();
    expect(account.roles).toEqual(['operations']);

    const exported = await run(['export', 'account', 'cli-bot']);
    expect(exported.json()).toEqual({
      username: 'cli-bot',
      firstname: 'Build',
      email: 'ci@example.net',
      groups: ['cli-operators'],
      inactive: false,
    });
    for (const member of [...SERVER_OWNED, 'password', 'roles', account._id]) expect(exported.stdout).not.toContain(`"${member}"`);

    // the group is not on production yet: nothing is written
    const early = await run(['copy', 'account', 'cli-bot', '--to', 'production', '--password-from-env', 'BOT_PW'], {
      BOT_PW: 'bot-password-2',
    });
    expect(early.code).toBe(1);
    expect(early.stderr).toMatch(
      /^nap: account "cli-bot" is in group "cli-operators", which http:\/\/127\.0\.0\.1:\d+ does not have: import it first/,
    );
    expect((await onProduction(['get', 'accounts', '-o', 'json'])).json<{ username: string }[]>().map((a) => a.username)).toEqual([
      'admin',
    ]);

    expect((await run(['copy', 'group', 'cli-operators', '--to', 'production'])).code).toBe(0);
    const copied = await run(['copy', 'account', 'cli-bot', '--to', 'production', '--password-from-env', 'BOT_PW'], {
      BOT_PW: 'bot-password-2',
    });
    expect(copied).toMatchObject({ code: 0, stderr: '' });
    // the copied account logs in on production with that password, and holds the group's roles
    const asBot = await napInProcess(['get', 'workflows', '-o', 'json'], {
      env: { ...home.env, NAP_URL: production.url, NAP_USERNAME: 'cli-bot', NAP_PASSWORD: 'bot-password-2' },
    });
    expect(asBot).toMatchObject({ code: 0, stdout: '[]\n' });
    expect((await onProduction(['get', 'account', 'cli-bot', '-o', 'json'])).json()).toMatchObject({
      firstname: 'Build',
      roles: ['operations'],
    });
  });

  it('creates a copied account without --password-from-env with a password nobody knows, and says so', async () => {
    const file = writeJson(path.join(work, 'cli-auditor.account.json'), { username: 'cli-auditor', groups: [], inactive: true });
    expect((await run(['import', 'account', file, '--password-from-env', 'PW'], { PW: 'auditor-password-1' })).code).toBe(0);
    expect((await run(['get', 'account', 'cli-auditor', '-o', 'json'])).json()).toMatchObject({ inactive: true });

    const copied = await run(['copy', 'account', 'cli-auditor', '--to', 'production']);
    expect(copied.code).toBe(0);
    const id = (await onProduction(['get', 'account', 'cli-auditor', '-o', 'json'])).json<{ _id: string; inactive: boolean }>();
    expect(id.inactive).toBe(true);
    expect(copied.stderr).toBe(
      `account "cli-auditor" was created on ${production.url} with no password anyone knows (passwords are never exported): an admin sets one with \`nap api put /user-management/accounts/${id._id}/password --data '{"password":"…"}'\`, or import it with --password-from-env VAR\n`,
    );
    expect(copied.stderr).not.toContain('auditor-password-1');

    const misused = await run(['import', 'group', fixture('cli-group.group.yaml'), '--password-from-env', 'PW'], { PW: 'x' });
    expect(misused).toMatchObject({
      code: 4,
      stderr: 'nap: --password-from-env is for accounts; for groups use --secret-from-env MEMBER=VAR\n',
    });
  });

  it('moves groups through a Git repository, and --replace sets the roles in place', async () => {
    const repo = path.join(work, 'groups.git');
    execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', repo]);
    const toGit = await run(['export', 'group', 'cli-operators', '--repository', repo, '--reference', 'main', '--path', 'groups']);
    expect(toGit.code).toBe(0);
    expect(toGit.stderr).toMatch(/exported group "cli-operators" .*to groups\/cli-operators\.group\.json in .*groups\.git \(main\)\n$/);

    // someone changes the group in the repository (a pull request, merged)
    const clone = path.join(work, 'groups-clone');
    execFileSync('git', ['clone', '--quiet', repo, clone]);
    const file = path.join(clone, 'groups', 'cli-operators.group.json');
    expect(json(file)).toEqual({ name: 'cli-operators', description: 'runs automations from CI', roles: ['operations'] });
    writeJson(file, { name: 'cli-operators', description: 'runs and writes automations', roles: ['operations', 'engineering'] });
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.net', ...args], { cwd: clone });
    git('commit', '--quiet', '-am', 'cli-operators may write');
    git('push', '--quiet', 'origin', 'main');

    const before = (await onProduction(['get', 'group', 'cli-operators', '-o', 'json'])).json<{ _id: string }>();
    const fromGit = await onProduction(['import', 'groups', 'groups', '--repository', repo, '--reference', 'main', '--replace']);
    expect(fromGit.code).toBe(0);
    expect(fromGit.stdout).toBe('imported group "cli-operators"\n');
    expect(fromGit.stderr).toBe(
      `group "cli-operators" on ${production.url} keeps its description "runs automations from CI": the platform has no route that changes a group's description\n`,
    );
    const after = (await onProduction(['get', 'group', 'cli-operators', '-o', 'json'])).json<{ _id: string; roles: string[] }>();
    expect(after._id).toBe(before._id);
    expect([...after.roles].sort()).toEqual(['engineering', 'operations']);
    // the account in it now holds both roles: its group kept its id
    expect((await onProduction(['get', 'account', 'cli-bot', '-o', 'json'])).json<{ roles: string[] }>().roles.sort()).toEqual([
      'engineering',
      'operations',
    ]);
  });
});

describe('devices and device groups', () => {
  it('exports devices without their secrets and imports a folder of them with --secret-from-env', async () => {
    expect((await run(['create', 'device', '-f', fixture('cli-edge.device.json')])).code).toBe(0);
    const dir = path.join(work, 'devices');
    for (const name of ['cli-r1', 'cli-r2']) {
      const res = await run(['export', 'device', name, '--path', dir]);
      expect(res.stderr).toBe(
        `device "${name}": its secrets are not exported (variables.gw_password); give them on import with --secret-from-env MEMBER=VAR\nexported device "${name}" to ${path.join(dir, `${name}.device.json`)}\n`,
      );
    }
    expect(readdirSync(dir).sort()).toEqual(['cli-r1.device.json', 'cli-r2.device.json']);
    expect(json(path.join(dir, 'cli-r1.device.json'))).toEqual({
      name: 'cli-r1',
      variables: { gw_host: '192.0.2.21', os: 'ios' },
      groups: ['cli-core'],
      omittedSecrets: ['variables.gw_password'],
    });
    expect(readFileSync(path.join(dir, 'cli-r1.device.json'), 'utf8')).not.toContain('secret"');

    const noSecret = await onProduction(['import', 'device', path.join(dir, 'cli-r2.device.json')]);
    expect(noSecret.code).toBe(0);
    expect(noSecret.stderr).toBe(
      `device "cli-r2" was created on ${production.url} without its secret variables variables.gw_password: give it with --secret-from-env variables.gw_password=VAR\n`,
    );
    expect((await onProduction(['describe', 'device', 'cli-r2', '-o', 'json'])).json<{ variables: object }>().variables).toEqual({
      gw_host: '192.0.2.22',
    });

    // the folder: cli-r1 is created, cli-r2 updated in place; both get the password
    const all = await onProduction(['import', 'devices', dir, '--replace', '--secret-from-env', 'variables.gw_password=EDGE_PW'], {
      EDGE_PW: 'edge-secret',
    });
    expect(all).toMatchObject({ code: 0, stdout: 'imported device "cli-r1"\nimported device "cli-r2"\n', stderr: '' });
    for (const name of ['cli-r1', 'cli-r2'])
      expect((await onProduction(['describe', 'device', name, '-o', 'json'])).json()).toMatchObject({
        variables: { gw_password: '********' },
      });

    // --replace: the plain variables become the document's; the secret one stays
    const edited = writeJson(path.join(work, 'cli-r1.device.json'), { name: 'cli-r1', variables: { gw_host: '192.0.2.31' }, groups: [] });
    expect((await onProduction(['import', 'device', edited, '--replace'])).code).toBe(0);
    expect((await onProduction(['describe', 'device', 'cli-r1', '-o', 'json'])).json()).toMatchObject({
      variables: { gw_host: '192.0.2.31', gw_password: '********' },
      groups: [],
    });
    expect((await onProduction(['describe', 'device', 'cli-r1', '-o', 'json'])).json<{ variables: object }>().variables).not.toHaveProperty(
      'os',
    );
  });

  it('creates, exports, copies and deletes a device group through the groups of its devices', async () => {
    const created = await run(['create', 'device-group', '-f', fixture('cli-spine.device-group.json')]);
    expect(created).toMatchObject({ code: 0, stdout: 'created device-group "cli-spine"\n', stderr: '' });
    expect((await run(['get', 'device-groups'])).stdout).toMatch(/^cli-spine\s+cli-r1,cli-r2\s+-$/m);
    expect((await run(['describe', 'device', 'cli-r1', '-o', 'json'])).json<{ groups: string[] }>().groups).toEqual([
      'cli-core',
      'cli-spine',
    ]);
    expect((await run(['export', 'device-group', 'cli-spine'])).json()).toEqual({
      name: 'cli-spine',
      description: '',
      devices: ['cli-r1', 'cli-r2'],
    });

    const again = await run(['create', 'device-group', '-f', fixture('cli-spine.device-group.json')]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^nap: device-group "cli-spine" already exists on .*; add --replace to overwrite it\n$/);

    const missing = writeJson(path.join(work, 'cli-leaf.device-group.json'), { name: 'cli-leaf', devices: ['cli-r1', 'cli-nowhere'] });
    const refused = await run(['create', 'device-group', '-f', missing]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^nap: device group "cli-leaf" names "cli-nowhere", not on http:\/\/127\.0\.0\.1:\d+: import that device first/,
    );
    expect((await run(['describe', 'device', 'cli-r1', '-o', 'json'])).json<{ groups: string[] }>().groups).not.toContain('cli-leaf');
    const empty = writeJson(path.join(work, 'cli-empty.device-group.json'), { name: 'cli-empty', description: 'nothing', devices: [] });
    const none = await run(['create', 'device-group', '-f', empty]);
    expect(none.code).toBe(4);
    expect(none.stderr).toMatch(/^nap: device group "cli-empty" names no device: over HTTP a device group lives on its devices/);

    // on production cli-r1 is in no group: the copy puts both devices in it
    const copied = await run(['copy', 'device-group', 'cli-spine', '--to', 'production']);
    expect(copied).toMatchObject({ code: 0, stderr: '' });
    expect((await onProduction(['get', 'device-groups', '-o', 'json'])).json()).toEqual([
      { name: 'cli-spine', description: '', devices: ['cli-r1', 'cli-r2'] },
    ]);
    // --replace with fewer members takes the group from the others
    const one = writeJson(path.join(work, 'cli-spine.device-group.json'), {
      name: 'cli-spine',
      devices: ['cli-r2'],
      description: 'leaf pair',
    });
    const replaced = await onProduction(['import', 'device-group', one, '--replace']);
    expect(replaced.code).toBe(0);
    expect(replaced.stderr).toBe(
      `device group "cli-spine" on ${production.url} has no description: only the platform's bus stores a device group's description\n`,
    );
    expect((await onProduction(['get', 'device-groups', '-o', 'json'])).json()).toEqual([
      { name: 'cli-spine', description: '', devices: ['cli-r2'] },
    ]);

    const deleted = await onProduction(['delete', 'device-group', 'cli-spine']);
    expect(deleted).toMatchObject({ code: 0, stdout: 'deleted device-group "cli-spine"\n' });
    expect((await onProduction(['get', 'device-groups', '-o', 'json'])).json()).toEqual([]);
    expect((await onProduction(['describe', 'device', 'cli-r2', '-o', 'json'])).json<{ groups: string[] }>().groups).toEqual([]);
  });
});

describe('verbs served through another route', () => {
  it('creates a project and installs a prebuilt from a file, through their import routes', async () => {
    const project = await run(['create', 'project', '-f', fixture('cli-empty.project.json')]);
    expect(project.code).toBe(0);
    expect(project.stdout).toMatch(/^created project "cli-empty" \(\w+\)\n$/);
    expect((await run(['get', 'projects'])).stdout).toMatch(/^cli-empty\s+made with nap create\s+0\s+\w+$/m);
    const twice = await run(['create', 'project', '-f', fixture('cli-empty.project.json')]);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toMatch(/\(409 PROJECT_ALREADY_EXISTS\)\n$/);

    const prebuilt = await run(['create', 'prebuilt', '-f', fixture('cli-edge-tools.prebuilt.json')]);
    expect(prebuilt.code).toBe(0);
    expect(prebuilt.stdout).toMatch(/^created prebuilt "@nap-cli\/edge-tools" \([\w-]+\)\n$/);
    expect((await run(['get', 'transformation', 'cli-prebuilt-tr', '-o', 'json'])).json()).toMatchObject({
      description: 'from a prebuilt',
    });
    const installed = await run(['create', 'prebuilt', '-f', fixture('cli-edge-tools.prebuilt.json')]);
    expect(installed.code).toBe(1);
    expect(installed.stderr).toMatch(/\(409 PREBUILT_ALREADY_EXISTS\)\n$/);
  });

  it('exports a job as its record, named by its id', async () => {
    expect((await run(['create', 'workflow', '-f', fixture('cli-complete.workflow.json')])).code).toBe(0);
    const started = await run(['run', 'workflow', 'cli-complete', '--var', 'greeting=hello', '--wait', '-o', 'json']);
    expect(started.code).toBe(0);
    const job = started.json<{ _id: string }>();
    const dir = path.join(work, 'jobs');
    mkdirSync(dir);
    const exported = await run(['export', 'job', job._id, '--path', dir]);
    expect(exported).toMatchObject({
      code: 0,
      stderr: `exported job "cli-complete" (${job._id}) to ${path.join(dir, `${job._id}.job.json`)}\n`,
    });
    expect(json(path.join(dir, `${job._id}.job.json`))).toMatchObject({ _id: job._id, name: 'cli-complete', status: 'complete' });
    // a job is read by its id, never found by paging through every job
    const debug = await run(['export', 'job', job._id, '--debug']);
    expect(debug.code).toBe(0);
    expect(debug.stderr).toContain(`/operations-manager/jobs/${job._id}'`);
    expect(debug.stderr).not.toContain('/operations-manager/jobs?');
  });
});

describe('what stays refused', () => {
  it('says in one line, with exit 4, what the platform cannot do for methods and jobs', async () => {
    for (const [args, message] of [
      [['create', 'method', '-f', fixture('cli-group.group.yaml')], /^nap: nap create method: methods are the platform's operations/],
      [['export', 'method', 'getJobs'], /^nap: nap export method: methods are exported with the roles that allow them/],
      [
        ['copy', 'method', 'getJobs', '--to', 'production'],
        /^nap: nap copy method: methods are the platform's operations, the same on every platform of a version\n$/,
      ],
      [
        ['create', 'job', '-f', fixture('cli-complete.workflow.json')],
        /^nap: nap create job: jobs are started, not created: use `nap run workflow NAME`/,
      ],
      [
        ['delete', 'job', 'x'],
        /^nap: nap delete job: jobs are not deleted one by one: finished jobs are moved into archives \(`nap jobs archive --before 90d`/,
      ],
      [['import', 'job', fixture('cli-complete.workflow.json')], /^nap: nap import job: no route creates a job record/],
      [['copy', 'job', 'x', '--to', 'production'], /^nap: nap copy job: jobs cannot be copied: run the workflow on the other platform\n$/],
      [
        ['import', 'workflow', fixture('cli-complete.workflow.json'), '--secret-from-env', 'a=B'],
        /^nap: --secret-from-env and --password-from-env are for resources nap exports without their secrets, not workflows\n$/,
      ],
    ] as const) {
      const res = await run([...args], { B: 'b' });
      expect({ args, code: res.code }).toEqual({ args, code: 4 });
      expect(res.stderr).toMatch(message);
      expect(res.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});
