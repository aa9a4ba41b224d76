import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eventually } from '@nap/testing';
import type { NapHome, NapResult } from './support/nap';
import { createHome, FIXTURES, napInProcess, profileSection } from './support/nap';
import type { Platform } from './support/platform';
import { startPlatform } from './support/platform';

/**
 * What `nap` says about what it was given: values it refuses before asking the platform (exit 4),
 * names it looks up, and commands that act on several things doing each one and saying which failed.
 */
let platform: Platform;
let home: NapHome;
let work: string;

const run = (args: string[], input?: string, terminal?: boolean): Promise<NapResult> =>
  napInProcess(args, { env: home.env, cwd: work, ...(input === undefined ? {} : { input }), ...(terminal === true ? { terminal } : {}) });
const workflow = JSON.parse(readFileSync(path.join(FIXTURES, 'cli-error.workflow.json'), 'utf8')) as Record<string, unknown>;
const file = (name: string, doc: unknown): string => {
  const full = path.join(work, name);
  writeFileSync(full, JSON.stringify(doc));
  return full;
};

beforeAll(async () => {
  platform = await startPlatform();
  home = createHome();
  home.writeNapConfig(profileSection('default', platform.port, platform.password));
  work = mkdtempSync(path.join(os.tmpdir(), 'nap-cli-usage-'));
  for (const wf of ['cli-error', 'cli-slow'])
    expect((await run(['create', 'workflow', '-f', path.join(FIXTURES, `${wf}.workflow.json`)])).code).toBe(0);
}, 120_000);

afterAll(async () => {
  await platform?.stop();
  if (home !== undefined) rmSync(home.home, { recursive: true, force: true });
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe('values refused before anything is asked', () => {
  it('takes a --limit of nap get as every --limit: a whole number from 1', async () => {
    for (const limit of ['abc', '-1', '0', '2.5']) {
      expect(await run(['get', 'roles', '--limit', limit])).toMatchObject({
        code: 4,
        stdout: '',
        stderr: `nap: --limit ${limit}: expected a positive whole number\n`,
      });
    }
    expect((await run(['get', 'roles', '--limit', '2', '-o', 'json'])).json<unknown[]>()).toHaveLength(2);
    expect((await run(['get', 'workflows', '--limit', '1', '-o', 'json'])).json<unknown[]>()).toHaveLength(1);
  });

  it('refuses a state a job or a task never has, naming it, and a workflow that does not exist', async () => {
    expect(await run(['jobs', 'list', '--status', 'bogus'])).toMatchObject({
      code: 4,
      stderr: 'nap: --status bogus: "bogus" is not a job state; the states: running, paused, complete, error, canceled\n',
    });
    expect(await run(['jobs', 'list', '--status', 'complete,errror'])).toMatchObject({
      code: 4,
      stderr: 'nap: --status complete,errror: "errror" is not a job state; the states: running, paused, complete, error, canceled\n',
    });
    expect(await run(['tasks', 'list', '--status', 'bogus'])).toMatchObject({
      code: 4,
      stderr: 'nap: --status bogus: "bogus" is not a task state; the states: incomplete, pending, running, complete, error, canceled\n',
    });
    expect((await run(['jobs', 'list', '--status', 'error,complete'])).code).toBe(0);
    expect((await run(['tasks', 'list', '--all', '--status', 'complete'])).code).toBe(0);
    expect(await run(['tasks', 'list', '--status', 'complete,error'])).toMatchObject({
      code: 4,
      stderr: 'nap: --status complete,error: one state, one of incomplete, pending, running, complete, error, canceled\n',
    });
    for (const args of [
      ['jobs', 'list', '--workflow', 'no-such-workflow'],
      ['tasks', 'list', '--workflow', 'no-such-workflow'],
    ]) {
      const res = await run(args);
      expect(res).toMatchObject({ code: 1, stdout: '' });
      expect(res.stderr).toMatch(
        /^nap: workflow "no-such-workflow" not found on http:\/\/127\.0\.0\.1:\d+; `nap get workflows` lists them\n$/,
      );
    }
    // a workflow that exists and has run no job lists none
    expect(await run(['jobs', 'list', '--workflow', 'cli-error'])).toMatchObject({ code: 0, stdout: 'No jobs found.\n' });
  });

  it('says which option holds JSON it cannot read, and calls stdin stdin', async () => {
    expect((await run(['import', 'automation', path.join(FIXTURES, 'cli-nightly.automation.json')])).code).toBe(0);
    expect(await run(['run', 'automation', 'cli-nightly', '--form-data', '{bad'])).toMatchObject({
      code: 4,
      stderr: expect.stringMatching(
        /^nap: --form-data is not valid JSON: .*; give it in single quotes, --form-data '\{"name": "value"\}', or as @FILE\n$/,
      ) as unknown,
    });
    expect(await run(['create', 'workflow', '-f', '-'], '42')).toMatchObject({
      code: 4,
      stderr: 'nap: stdin must hold a JSON/YAML object or an array of objects\n',
    });
  });

  it('reads stdin to its end, tens of MB too, refuses a terminal rather than wait for Ctrl-D, and lets one option read it', async () => {
    const name = 'cli-from-stdin';
    const created = await run(['create', 'workflow', '-f', '-', '-o', 'json'], JSON.stringify({ ...workflow, name }));
    expect(created.code).toBe(0);
    expect(created.json()).toMatchObject({ name });
    // 32 MB: parsed whole (a document cut short is no JSON, and would be said so)
    const large = `[${'1,'.repeat(16 * 1024 * 1024)}1]`;
    expect(await run(['create', 'workflow', '-f', '-'], large)).toMatchObject({
      code: 4,
      stderr: 'nap: stdin must hold a JSON/YAML object or an array of objects\n',
    });
    // a pipe closed with nothing in it
    expect(await run(['create', 'workflow', '-f', '-'], '')).toMatchObject({
      code: 4,
      stderr: 'nap: stdin must hold a JSON/YAML object or an array of objects\n',
    });
    for (const [args, flag] of [
      [['create', 'workflow', '-f', '-'], '-f -'],
      [['api', 'post', '/workflow_builder/workflows/save', '--data', '@-'], '--data @-'],
      [['run', 'workflow', 'cli-error', '--vars', '-'], '--vars -'],
    ] as const) {
      expect(await run([...args], undefined, true)).toMatchObject({
        code: 4,
        stdout: '',
        stderr: `nap: ${flag} reads stdin, which is a terminal: pipe the input in, or name a file\n`,
      });
    }
    expect(await run(['run', 'automation', 'cli-nightly', '--form-data', '@-', '--vars', '-'], '{}')).toMatchObject({
      code: 4,
      stderr: 'nap: --vars - reads stdin, which --form-data @- read already: give one of them a file\n',
    });
  });

  it('names every resource in the help, known-hosts too', async () => {
    const help = await run(['get', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('device-groups, known-hosts, jobs (singular or plural)');
  });
});

describe('names', () => {
  it('refuses an empty name, and looks up "." and ".." as names, not as folders of a URL', async () => {
    for (const args of [
      ['get', 'workflow', ''],
      ['describe', 'workflow', ''],
      ['get', 'account', ''],
      ['delete', 'workflow', ''],
    ]) {
      const res = await run(args);
      expect({ args, code: res.code, stdout: res.stdout }).toEqual({ args, code: 4, stdout: '' });
      expect(res.stderr).toMatch(/^nap: an empty name: give the name or id of an? \S+\n$/);
    }
    for (const [resource, name] of [
      ['workflow', '.'],
      ['workflow', '..'],
      ['integration', '..'],
      ['integration-model', '.'],
      ['prebuilt', '.'],
    ]) {
      const res = await run(['describe', resource!, name!, '--debug']);
      expect({ resource, name, code: res.code, stdout: res.stdout }).toEqual({ resource, name, code: 1, stdout: '' });
      expect(res.stderr).toContain(`nap: ${resource} "${name}" not found on `);
      // no request went to another route (`/`, or the list the dots would make of /…/:id)
      expect(res.stderr).not.toMatch(/^curl '[^']*\/\.{1,2}'/m);
      expect(res.stderr).not.toMatch(/^curl 'http:\/\/127\.0\.0\.1:\d+\/'/m);
    }
    expect(await run(['jobs', 'describe', '..'])).toMatchObject({
      code: 4,
      stderr: 'nap: ".." cannot be sent as the jobId of /operations-manager/jobs/:jobId: a URL reads it as a folder, not a name\n',
    });
  });
});

describe('several things at once', () => {
  it('creates every document of an array it can, and says how many it could not', async () => {
    const arr = file('arr.json', [
      { ...workflow, name: 'arr-1' },
      { ...workflow, name: 'cli-error' },
      { ...workflow, name: 'arr-3' },
    ]);
    const res = await run(['create', 'workflow', '-f', arr]);
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(/^created workflow "arr-1" \(\S+\)\ncreated workflow "arr-3" \(\S+\)\n$/);
    expect(res.stderr).toMatch(
      /^nap: workflow "cli-error" not created: A workflow named "cli-error" already exists; names are unique \(409 WORKFLOW_ALREADY_EXISTS\)\nnap: 1 of 3 workflows not created\n$/,
    );
  });

  it('deletes every name it finds, whatever their order', async () => {
    const res = await run(['delete', 'workflow', 'nope', 'arr-1', 'arr-3']);
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(/^deleted workflow "arr-1" \(\S+\)\ndeleted workflow "arr-3" \(\S+\)\n$/);
    expect(res.stderr).toMatch(
      /^nap: workflow "nope" not found on \S+; `nap get workflows` lists them\nnap: 1 of 3 workflows not deleted\n$/,
    );
    expect((await run(['get', 'workflow', 'arr-1'])).code).toBe(1);
  });

  it('pauses and cancels every job it can; every failure is on stderr', async () => {
    const job = (await run(['run', 'workflow', 'cli-slow', '-o', 'json'])).json<{ _id: string }>()._id;
    await eventually(
      'the job running',
      async () => (await run(['describe', 'job', job, '-o', 'json'])).json<{ status: string }>().status === 'running',
    );
    const paused = await run(['jobs', 'pause', 'nope', job]);
    expect(paused.code).toBe(1);
    expect(paused.stdout).toBe(`paused job ${job} (paused)\n`);
    expect(paused.stderr).toMatch(/^nap: job nope not paused: .+ \(404 JOB_NOT_FOUND\)\nnap: 1 of 2 jobs not paused\n$/);

    const canceled = await run(['jobs', 'cancel', 'nope', job]);
    expect(canceled.code).toBe(1);
    expect(canceled.stdout).toBe(`canceled job ${job}\n`);
    expect(canceled.stderr).toMatch(/^nap: job nope not canceled: .+\nnap: 1 of 2 jobs not canceled\n$/);
    const again = await run(['jobs', 'cancel', job]);
    expect(again).toMatchObject({ code: 1, stdout: '' });
    expect(again.stderr).toMatch(new RegExp(`^nap: job ${job} not canceled: .+\\n$`));
  });
});

describe('nap export', () => {
  it('says plainly when --path cannot be written to (exit 4)', async () => {
    const res = await run(['export', 'workflow', 'cli-error', '--path', '/dev/null/x']);
    expect(res).toMatchObject({
      code: 4,
      stderr: 'nap: cannot write /dev/null/x/cli-error.workflow.json: a part of the path is a file, not a folder\n',
    });
    // the Git flags alone would be ignored: refused, nothing written
    expect(await run(['export', 'workflow', 'cli-error', '--reference', 'main', '--message', 'm'])).toMatchObject({
      code: 4,
      stdout: '',
      stderr: 'nap: --reference and --message go with --repository URL|DIR: give the Git repository too\n',
    });
    expect(await run(['import', 'workflow', 'x.workflow.json', '--reference', 'main'])).toMatchObject({
      code: 4,
      stderr: 'nap: --reference goes with --repository URL|DIR: give the Git repository too\n',
    });
    expect(await run(['export', 'workflow', 'cli-error', '--path', '/dev/null'])).toMatchObject({
      code: 4,
      stderr: 'nap: cannot write /dev/null/cli-error.workflow.json: the --path is a file, not a folder\n',
    });
    // procfs answers ENOENT to a mkdir under an existing folder: Node's recursive mkdir retried it forever
    expect(await run(['export', 'workflow', 'cli-error', '--path', '/proc/nap-export/out'])).toMatchObject({
      code: 4,
      stdout: '',
      stderr:
        'nap: cannot write /proc/nap-export/out/cli-error.workflow.json: the folder /proc/nap-export cannot be made: the file system of /proc refuses new folders\n',
    });
  });

  it('does not overwrite the export of another document whose name gives the same file name', async () => {
    for (const name of ['a/b', 'a_b'])
      expect((await run(['create', 'workflow', '-f', file('one.json', { ...workflow, name })])).code).toBe(0);
    const out = path.join(work, 'coll');
    expect((await run(['export', 'workflow', 'a/b', '--path', out])).code).toBe(0);
    // the same document again is fine
    expect((await run(['export', 'workflow', 'a/b', '--path', out])).code).toBe(0);
    const other = await run(['export', 'workflow', 'a_b', '--path', out]);
    expect(other).toMatchObject({
      code: 4,
      stderr: `nap: ${path.join(out, 'a_b.workflow.json')} holds workflow "a/b", whose name gives the same file name as "a_b": nap does not overwrite it; export workflow "a_b" to another --path\n`,
    });
    expect(JSON.parse(readFileSync(path.join(out, 'a_b.workflow.json'), 'utf8'))).toMatchObject({ name: 'a/b' });
  });
});

describe('nap devices', () => {
  it('says first that a device is not in the inventory', async () => {
    const res = await run(['devices', 'command', 'nope', 'show clock']);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(
      /^nap: "nope" is no device of the inventory on http:\/\/127\.0\.0\.1:\d+ \(`nap get devices` lists them\), and /,
    );
  });
});
