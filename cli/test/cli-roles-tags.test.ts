import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventually } from '@nap/testing';
import type { NapHome, NapResult } from './support/nap';
import { createHome, FIXTURES, nap, napInProcess, profileSection } from './support/nap';
import type { Platform } from './support/platform';
import { startPlatform } from './support/platform';

/**
 * Custom roles and tags with `nap`: an administrator makes a role from a file, reads what it allows,
 * gives it to a group (whose members may then call exactly that), moves it between platforms; a
 * person tags workflows and reads their tags. Two platforms, "staging" (the default) and
 * "production", shared by the file.
 */
let staging: Platform;
let production: Platform;
let home: NapHome;
let work: string;

const run = (...args: string[]): Promise<NapResult> => napInProcess(args, { env: home.env });
const onProduction = (...args: string[]): Promise<NapResult> => run(...args, '--profile', 'production');
const readJson = <T = Record<string, unknown>>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;
const writeJson = (name: string, doc: unknown): string => {
  const file = path.join(work, name);
  writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`);
  return file;
};
const lines = (text: string): string[] => text.trimEnd().split('\n');
/** A table's rows, each split on the column gaps. */
const rows = (text: string): string[][] => lines(text).map((l) => l.trim().split(/\s{2,}/));

/** A call as the account of `token` makes it: its status. */
async function statusAs(platform: Platform, token: string, route: string): Promise<number> {
  const res = await fetch(`${platform.url}${route}`, { headers: { authorization: `Bearer ${token}` } });
  await res.body?.cancel();
  return res.status;
}

async function login(platform: Platform, username: string, password: string): Promise<string> {
  const res = await fetch(`${platform.url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user: { username, password } }),
  });
  expect(res.status).toBe(200);
  return (await res.text()).replace(/^"|"$/g, '');
}

const JOB_READER = {
  name: 'job-readers',
  description: 'reads jobs and automations',
  allowedMethods: [
    { provenance: 'OperationsManager', name: 'getJobs' },
    { provenance: 'OperationsManager', name: 'getAutomations' },
  ],
};

beforeAll(async () => {
  [staging, production] = await Promise.all([startPlatform('staging-password'), startPlatform('production-password')]);
  home = createHome();
  home.writeIpctlConfig(
    `[application]\ndefault_profile = staging\n\n${profileSection('staging', staging.port, staging.password)}\n${profileSection('production', production.port, production.password)}`,
  );
  work = mkdtempSync(path.join(os.tmpdir(), 'nap-cli-roles-tags-'));
  expect((await run('create', 'role', '-f', writeJson('job-readers.json', JOB_READER))).code).toBe(0);
}, 120_000);

afterAll(async () => {
  await Promise.all([staging?.stop(), production?.stop()]);
  if (home !== undefined) rmSync(home.home, { recursive: true, force: true });
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe('custom roles', () => {
  it('are listed with the built-in ones, and what a role allows is read as application, method and route', async () => {
    const list = await run('get', 'roles');
    expect(list.stderr).toBe('');
    const table = rows(list.stdout);
    expect(table[0]).toEqual(['NAME', 'TYPE', 'METHODS', 'DESCRIPTION', 'ID']);
    expect(table.find((r) => r[0] === 'admin')?.slice(1, 2)).toEqual(['built-in']);
    const custom = table.find((r) => r[0] === 'job-readers');
    expect(custom?.slice(1, 4)).toEqual(['custom', '2', 'reads jobs and automations']);
    expect(custom?.[4]).toMatch(/^[0-9a-f]{24}$/);

    const methods = await run('roles', 'methods', 'job-readers');
    expect(methods).toMatchObject({ code: 0, stderr: '' });
    expect(rows(methods.stdout)).toEqual([
      ['APPLICATION', 'METHOD', 'ROUTE'],
      ['OperationsManager', 'getAutomations', 'GET /operations-manager/automations'],
      ['OperationsManager', 'getJobs', 'GET /operations-manager/jobs'],
    ]);
    const asJson = (await run('roles', 'methods', 'job-readers', '-o', 'json')).json<{ name: string; route: { verb: string } }[]>();
    expect(asJson.map((m) => `${m.route.verb} ${m.name}`)).toEqual(['GET getAutomations', 'GET getJobs']);
    // a built-in role reads the same way
    expect(rows((await run('roles', 'methods', 'auditor')).stdout)).toContainEqual(['AdminEssentials', 'getAudit', 'GET /audit']);
  });

  it('a method the platform does not have is refused naming it, and nothing is created (exit 1)', async () => {
    const bad = await run(
      'create',
      'role',
      '-f',
      writeJson('bad.json', { name: 'bad-role', allowedMethods: [{ provenance: 'OperationsManager', name: 'noSuchMethod' }] }),
    );
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^nap: role "bad-role" not created: .*body\.role\.allowedMethods\[0\].*\(400 VALIDATION_FAILED\)\n$/);
    expect((await run('get', 'role', 'bad-role')).code).toBe(1);
    // a built-in role cannot be deleted, and the platform says why
    const builtIn = await run('delete', 'role', 'admin');
    expect(builtIn.code).toBe(1);
    expect(builtIn.stderr).toMatch(/^nap: DELETE \/authorization\/roles\/admin failed: .*\(409 ROLE_BUILT_IN\)\n$/);
  });

  it('given to a group, lets its members call exactly what it allows; a role given cannot be deleted until revoked', async () => {
    const group = await run('create', 'group', '-f', writeJson('readers.group.json', { name: 'readers', roles: [] }), '-o', 'json');
    const groupId = group.json<{ _id: string }>()._id;
    await run(
      'create',
      'account',
      '-f',
      writeJson('reader.json', { username: 'reader', password: 'reader-password-1', groups: [groupId] }),
    );
    const token = await login(staging, 'reader', 'reader-password-1');
    expect(await statusAs(staging, token, '/operations-manager/jobs')).toBe(403);

    const granted = await run('roles', 'grant', 'job-readers', 'readers');
    expect(granted).toMatchObject({ code: 0, stderr: '' });
    expect(granted.stdout).toMatch(
      /^role "job-readers" \([0-9a-f]{24}\) given to group "readers" \([0-9a-f-]{36}\): its members may call what it allows from their next request\n$/,
    );
    await eventually('the reader may read jobs', async () => (await statusAs(staging, token, '/operations-manager/jobs')) === 200, {
      timeoutMs: 10_000,
    });
    // and nothing else
    expect(await statusAs(staging, token, '/automation-studio/automations')).toBe(403);
    expect((await run('roles', 'grant', 'job-readers', 'readers')).stdout).toMatch(/^group "readers" .* already has role "job-readers"/);

    const inUse = await run('delete', 'role', 'job-readers');
    expect(inUse.code).toBe(1);
    expect(inUse.stderr).toMatch(/^nap: .*"readers".*\(409 ROLE_IN_USE\)\n$/);

    // a built-in role is given through the group's roles; -o json prints the group
    const builtIn = await run('roles', 'grant', 'apiread', 'readers', '-o', 'json');
    expect(builtIn.json()).toMatchObject({ name: 'readers', roles: ['apiread'], assignedRoles: [{ roleId: expect.any(String) }] });
    expect((await run('roles', 'revoke', 'apiread', 'readers')).code).toBe(0);

    // each group on its own: one unknown, the other done, exit 1
    const some = await run('roles', 'revoke', 'job-readers', 'no-such-group', 'readers');
    expect(some.code).toBe(1);
    expect(some.stdout).toMatch(/^role "job-readers" .* taken from group "readers" /);
    expect(lines(some.stderr)).toEqual([
      expect.stringMatching(/^nap: group "no-such-group" not found on http:\/\/127\.0\.0\.1:\d+/),
      'nap: 1 of 2 groups not changed',
    ]);
    await eventually(
      'the reader may no longer read jobs',
      async () => (await statusAs(staging, token, '/operations-manager/jobs')) === 403,
      {
        timeoutMs: 10_000,
      },
    );
    expect((await run('get', 'group', 'readers', '-o', 'json')).json()).toMatchObject({ roles: [], assignedRoles: [] });
  });

  it('exports, imports --replace in place (its id kept) and copies, with the groups that hold it by name', async () => {
    const role = (await run('get', 'role', 'job-readers', '-o', 'json')).json<{ _id: string }>();
    const exported = await run('export', 'role', 'job-readers', '--path', work);
    expect(exported).toMatchObject({ code: 0, stdout: '' });
    const file = path.join(work, 'job-readers.role.json');
    expect(readJson(file)).toMatchObject({ ...JOB_READER, _id: role._id, provenance: 'Custom', builtIn: false });

    // the file changed: fewer methods, no description; --replace makes the role exactly that
    writeFileSync(file, JSON.stringify({ ...readJson(file), description: undefined, allowedMethods: [JOB_READER.allowedMethods[0]] }));
    expect((await run('import', 'role', file)).stderr).toMatch(/^nap: role "job-readers" already exists on .*; add --replace/);
    const replaced = await run('import', 'role', file, '--replace');
    expect(replaced.stdout).toBe(`imported role "job-readers" (${role._id}), updating the one there in place\n`);
    expect((await run('get', 'role', 'job-readers', '-o', 'json')).json()).toMatchObject({
      _id: role._id,
      description: '',
      allowedMethods: [{ name: 'getJobs' }],
    });

    // a group that holds it travels with it by name: the role first
    const group = await run('create', 'group', '-f', writeJson('auditors.group.json', { name: 'job-auditors', roles: ['operations'] }));
    expect(group.code).toBe(0);
    expect((await run('roles', 'grant', 'job-readers', 'job-auditors')).code).toBe(0);
    expect(JSON.parse((await run('export', 'group', 'job-auditors')).stdout)).toEqual({
      name: 'job-auditors',
      description: '',
      roles: ['operations'],
      customRoles: ['job-readers'],
    });
    // the names are for an import, which finds the roles' ids on the target; a create sends the file as it is
    const asCreated = await onProduction(
      'create',
      'group',
      '-f',
      writeJson('exported.group.json', { name: 'job-auditors', customRoles: ['job-readers'] }),
    );
    expect(asCreated).toMatchObject({ code: 4, stdout: '' });
    expect(asCreated.stderr).toMatch(/^nap: group "job-auditors": customRoles .* are read by `nap import group FILE`/);
    const early = await run('copy', 'group', 'job-auditors', '--to', 'production');
    expect(early.code).toBe(1);
    expect(early.stderr).toMatch(/role "job-readers", which http:\/\/127\.0\.0\.1:\d+ does not have as a custom role: import it first/);

    const copied = await run('copy', 'role', 'job-readers', '--to', 'production');
    expect(copied.stdout).toMatch(/^copied role "job-readers" \([0-9a-f]{24}\) from staging \(.*\) to production \(.*\)\n$/);
    const there = (await onProduction('get', 'role', 'job-readers', '-o', 'json')).json<{ _id: string }>();
    expect(there._id).not.toBe(role._id);
    expect((await run('copy', 'group', 'job-auditors', '--to', 'production')).code).toBe(0);
    expect((await onProduction('get', 'group', 'job-auditors', '-o', 'json')).json()).toMatchObject({
      roles: ['operations'],
      assignedRoles: [{ roleId: there._id }],
    });

    // a built-in role is exported as a record, and the platform keeps it as it is
    expect((await run('export', 'role', 'admin', '--path', work)).code).toBe(0);
    const builtIn = await onProduction('import', 'role', path.join(work, 'admin.role.json'), '--replace');
    expect(builtIn.code).toBe(1);
    expect(builtIn.stderr).toMatch(/\(409 ROLE_BUILT_IN\); the role "admin" there was left as it was\n$/);
  });

  it('methods are listed by application; a name two applications share is refused with the ids that tell them apart', async () => {
    const all = rows((await run('get', 'methods')).stdout);
    expect(all[0]).toEqual(['APPLICATION', 'METHOD', 'ROUTE']);
    expect(all).toContainEqual(['OperationsManager', 'getJobs', 'GET /operations-manager/jobs']);
    const shared = await run('get', 'method', 'getAutomation');
    expect(shared.code).toBe(4);
    expect(shared.stderr).toBe(
      'nap: 2 methods are named "getAutomation" (AutomationStudio.getAutomation, OperationsManager.getAutomation): give the id of the one you mean\n',
    );
    expect(rows((await run('get', 'method', 'OperationsManager.getAutomation')).stdout)[1]).toEqual([
      'OperationsManager',
      'getAutomation',
      'GET /operations-manager/automations/:id',
    ]);
    const gap = await run('create', 'method', '-f', writeJson('m.json', {}));
    expect(gap.code).toBe(4);
    expect(lines(gap.stderr)).toEqual([expect.stringMatching(/^nap: nap create method: methods are the platform's operations/)]);
  });
});

describe('tags', () => {
  it('tag a workflow, list its tags, take one off; every tag checked before any is put on', async () => {
    expect((await run('create', 'workflow', '-f', path.join(FIXTURES, 'cli-complete.workflow.json'))).code).toBe(0);
    for (const tag of [{ name: 'netbox', description: 'Netbox\u001b[2J integration' }, { name: 'edge' }])
      expect((await run('create', 'tag', '-f', writeJson(`${tag.name}.tag.json`, tag))).stdout).toMatch(
        new RegExp(`^created tag "${tag.name}" \\([0-9a-f-]{36}\\)\\n$`),
      );
    // the platform's text is shown escaped, never acted on by the terminal
    const list = await run('get', 'tags');
    expect(rows(list.stdout).map((r) => r.slice(0, 2))).toEqual([
      ['NAME', 'DESCRIPTION'],
      ['edge', '-'],
      ['netbox', 'Netbox\\x1b[2J integration'],
    ]);
    expect(list.stdout).not.toContain('\u001b');

    const missing = await run('tags', 'add', 'workflow', 'cli-complete', 'netbox', 'no-such-tag');
    expect(missing).toMatchObject({ code: 1, stdout: '' });
    expect(missing.stderr).toMatch(/^nap: tag "no-such-tag" not found on http:\/\/127\.0\.0\.1:\d+; `nap get tags` lists them/);
    expect((await run('tags', 'list', 'workflow', 'cli-complete')).stdout).toMatch(/^workflow "cli-complete" \(\S+\) has no tags\n$/);

    const added = await run('tags', 'add', 'workflow', 'cli-complete', 'netbox', 'edge');
    expect(added).toMatchObject({ code: 0, stderr: '' });
    expect(lines(added.stdout)).toEqual([
      expect.stringMatching(/^workflow "cli-complete" \(\S+\) tagged "netbox"$/),
      expect.stringMatching(/^workflow "cli-complete" \(\S+\) tagged "edge"$/),
    ]);
    expect((await run('tags', 'add', 'workflow', 'cli-complete', 'edge')).stdout).toMatch(/ already has tag "edge"\n$/);
    expect(rows((await run('tags', 'list', 'workflows', 'cli-complete')).stdout).map((r) => r[0])).toEqual(['NAME', 'edge', 'netbox']);

    const removed = await run('tags', 'remove', 'workflow', 'cli-complete', 'netbox', '-o', 'json');
    expect(removed.json<{ name: string }[]>().map((t) => t.name)).toEqual(['edge']);
    expect((await run('tags', 'list', 'workflow', 'cli-complete', '-o', 'json')).json<{ name: string }[]>().map((t) => t.name)).toEqual([
      'edge',
    ]);

    const notTaggable = await run('tags', 'list', 'device', 'x');
    expect(notTaggable).toMatchObject({
      code: 4,
      stderr: 'nap: tags go on workflows, transformations, templates and forms, not on devices\n',
    });
  });

  it('export, import --replace in place (the documents it is on keep it), copy and delete', async () => {
    const tag = (await run('describe', 'tag', 'edge', '-o', 'json')).json<{ _id: string }>();
    expect((await run('export', 'tag', 'edge', '--path', work)).code).toBe(0);
    const file = path.join(work, 'edge.tag.json');
    writeFileSync(file, JSON.stringify({ ...readJson(file), description: 'edge devices' }));
    const replaced = await run('import', 'tag', file, '--replace');
    expect(replaced.stdout).toBe(`imported tag "edge" (${tag._id}), updating the one there in place\n`);
    expect((await run('tags', 'list', 'workflow', 'cli-complete', '-o', 'json')).json()).toEqual([
      expect.objectContaining({ _id: tag._id, name: 'edge', description: 'edge devices' }),
    ]);

    // copied by ipctl's name; the tag is a new one there, and a second copy needs --replace
    expect((await run('copy', 'tag', 'edge', '--to', 'production')).code).toBe(0);
    expect((await onProduction('get', 'tag', 'edge', '-o', 'json')).json()).toMatchObject({ name: 'edge', description: 'edge devices' });
    expect((await run('copy', 'tag', 'edge', '--to', 'production')).code).toBe(1);

    // the bin, end to end: deleting the tag takes it off the workflow
    const deleted = await nap(['delete', 'tag', 'edge'], { env: home.env });
    expect(deleted).toMatchObject({ code: 0, stdout: `deleted tag "edge" (${tag._id})\n` });
    expect((await run('tags', 'list', 'workflow', 'cli-complete')).stdout).toMatch(/ has no tags\n$/);
    expect((await run('delete', 'tag', 'edge')).stderr).toMatch(/^nap: tag "edge" not found on /);
  });
});
