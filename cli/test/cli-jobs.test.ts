import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { eventually } from '@nap/testing';
import type { NapHome, NapResult } from './support/nap';
import { createHome, FIXTURES, nap, napInProcess, profileSection, spawnNap } from './support/nap';
import type { Platform } from './support/platform';
import { NAP_BIN, startPlatform } from './support/platform';
import { startProxy } from './support/proxy';

let platform: Platform;
let home: NapHome;

const run = (args: string[]): Promise<NapResult> => napInProcess(args, { env: home.env });
/** The bin in a process of its own: its exit code is the process's. */
const runProcess = (args: string[]): Promise<NapResult> => nap(args, { env: home.env });

interface Job {
  _id: string;
  name: string;
  status: string;
  tasks: Record<string, { status?: string }>;
}
interface Task {
  id: string;
  status: string;
  job: { _id: string };
}

/** The environment of a `nap` that reaches the platform through `proxy`, as the admin. */
function throughProxy(proxy: { port: number }): NodeJS.ProcessEnv {
  return { ...home.env, NAP_URL: `http://127.0.0.1:${proxy.port}`, NAP_USERNAME: 'admin', NAP_PASSWORD: platform.password };
}

async function start(workflow: string, ...args: string[]): Promise<string> {
  const res = await run(['run', 'workflow', workflow, '-o', 'json', ...args]);
  expect(res.code).toBe(0);
  return res.json<Job>()._id;
}

/** Waits until the manual task of the job waits for a person. */
function waitingTask(jobId: string): Promise<Task> {
  return eventually(
    `the manual task of job ${jobId} waiting`,
    async () => {
      const res = await run(['tasks', 'list', '--job', jobId, '-o', 'json']);
      return res.json<Task[]>()[0];
    },
    { timeoutMs: 20_000 },
  );
}

beforeAll(async () => {
  platform = await startPlatform();
  home = createHome();
  home.writeNapConfig(profileSection('default', platform.port, platform.password));
  for (const wf of ['cli-complete', 'cli-error', 'cli-manual', 'cli-slow', 'cli-ask-later', 'cli-3steps']) {
    const res = await run(['create', 'workflow', '-f', path.join(FIXTURES, `${wf}.workflow.json`)]);
    expect(res.code).toBe(0);
  }
}, 120_000);

afterAll(async () => {
  await platform?.stop();
  if (home !== undefined) rmSync(home.home, { recursive: true, force: true });
});

describe('nap run', () => {
  it('exits 0 when the job completes, and --follow streams its tasks', async () => {
    const followed = await runProcess(['run', 'workflow', 'cli-complete', '--var', 'greeting=hello', '--follow']);
    expect(followed.code).toBe(0);
    expect(followed.stderr).toMatch(/^started job \w+ \(cli-complete\)$/m);
    expect(followed.stderr).toMatch(/✔ a1 \(set a\) finished: success/);
    expect(followed.stderr).toMatch(/✔ b2 \(set b\) finished: success/);
    expect(followed.stdout).toMatch(/^job \w+ complete in \d+m?s\n$/);

    const waited = await run(['run', 'workflow', 'cli-complete', '--var', 'greeting=hi', '--wait', '-o', 'json']);
    expect(waited.code).toBe(0);
    expect(waited.stderr).toBe('');
    expect(waited.json()).toMatchObject({ status: 'complete', variables: { greeting: 'hi', a: 'hi', b: 2 } });
  });

  it('exits 1 when the job ends in error, and says why', async () => {
    const followed = await run(['run', 'workflow', 'cli-error', '--follow']);
    expect(followed.code).toBe(1);
    expect(followed.stderr).toMatch(/✖ e2 \(fail on purpose\) finished: error — the device said no/);
    expect((await runProcess(['run', 'workflow', 'cli-error', '--wait'])).code).toBe(1);
  });

  it('exits 2 when the job is canceled while it waits on a manual task', async () => {
    const running = spawnNap(['run', 'workflow', 'cli-manual', '--var', 'payload={"a":1}', '--wait', '-o', 'json'], home.env);
    const { exited } = running;
    const task = await eventually(
      'the manual task waiting',
      async () => {
        const res = await run(['tasks', 'list', '--workflow', 'cli-manual', '-o', 'json']);
        return res.json<Task[]>().find((t) => t.id === 'v1');
      },
      { timeoutMs: 20_000 },
    );
    const canceled = await run(['jobs', 'cancel', task.job._id]);
    expect(canceled.stdout).toBe(`canceled job ${task.job._id}\n`);
    expect(await exited).toBe(2);
    expect(JSON.parse(running.stdout())).toMatchObject({ _id: task.job._id, status: 'canceled' });
  });

  it('exits 3 when the job is still running at --timeout', async () => {
    const started = Date.now();
    const res = await run(['run', 'workflow', 'cli-slow', '--timeout', '1s']);
    expect(res.code).toBe(3);
    expect(Date.now() - started).toBeLessThan(15_000);
    const id = /job (\w+) is still running after 1s \(--timeout\)/.exec(res.stderr)?.[1];
    expect(id).toBeDefined();
    expect(res.stdout).toBe('');
    // -o json: the job as it stands on stdout, so that a script has its id to cancel or follow it
    const json = await run(['run', 'workflow', 'cli-slow', '--follow', '--timeout', '1s', '-o', 'json']);
    expect(json.code).toBe(3);
    const job = json.json<Job>();
    expect(job).toMatchObject({ name: 'cli-slow', status: 'running' });
    expect(json.stderr).toContain(`nap: job ${job._id} is still running after 1s (--timeout)`);
    const watched = await run(['jobs', 'watch', job._id, '--timeout', '1s', '-o', 'yaml']);
    expect(watched.code).toBe(3);
    expect(watched.stdout).toMatch(new RegExp(`^_id: ${job._id}\n`));
    expect((await run(['jobs', 'cancel', id!, job._id])).code).toBe(0);
  });

  it('says, when a start gets no answer, that the job may have started and how to look, so that a retry does not start it twice', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const proxy = await startProxy(platform.url, {
      hold: (method, route) => (method === 'POST' && route === '/operations-manager/jobs/start' ? held : undefined),
    });
    try {
      const env = { ...throughProxy(proxy), NAP_TIMEOUT: '1' };
      const res = await napInProcess(['run', 'workflow', 'cli-complete', '--follow'], { env });
      expect(res.code).toBe(6);
      expect(res.stderr).toMatch(
        /^nap: http:\/\/127\.0\.0\.1:\d+ did not answer POST \/operations-manager\/jobs\/start within 1 s \(the timeout NAP_TIMEOUT sets\); whether the job started is not known: `nap jobs list --workflow "cli-complete" --since 10m` shows it if it did\n$/,
      );
    } finally {
      await proxy.stop();
      release();
    }
  });

  it('says a job the platform does not have as a missing document, for every command that names one', async () => {
    const missing = '6b15af788c594d6675926cff';
    for (const args of [
      ['jobs', 'describe', missing],
      ['jobs', 'watch', missing],
      ['jobs', 'retry', missing, 't1'],
      ['tasks', 'finish', missing, 't1'],
    ]) {
      const res = await run(args);
      expect({ args, code: res.code, stderr: res.stderr }).toEqual({
        args,
        code: 1,
        stderr: expect.stringMatching(
          new RegExp(
            `^nap: job "${missing}" not found on http://127\\.0\\.0\\.1:\\d+; \`nap jobs list\` lists them \\(a finished job may have been moved into an archive: \`nap jobs archives\`\\)\n$`,
          ),
        ) as unknown,
      });
    }
  });

  it('runs an automation through its manual trigger', async () => {
    const automation = await run([
      'api',
      'post',
      '/operations-manager/automations',
      '--data',
      '{"automation":{"name":"cli-auto","componentName":"cli-complete"}}',
      '-o',
      'json',
    ]);
    const automationId = automation.json<{ data: { _id: string } }>().data._id;
    const trigger = await run([
      'api',
      'post',
      '/operations-manager/triggers',
      '--data',
      JSON.stringify({ name: 'by hand', type: 'manual', actionId: automationId, formData: { greeting: 'default' } }),
    ]);
    expect(trigger.code).toBe(0);
    // a manual trigger has no NEXT RUN, and has not started a job yet (LAST STARTED)
    expect((await run(['get', 'triggers'])).stdout).toMatch(/^by hand\s+manual\s+true\s+-\s+-\s+\S+$/m);
    const res = await run(['run', 'automation', 'cli-auto', '--form-data', '{"greeting":"from the form"}', '--wait', '-o', 'json']);
    expect(res.code).toBe(0);
    expect(res.json()).toMatchObject({ name: 'cli-complete', status: 'complete', variables: { a: 'from the form' } });
    const none = await run(['run', 'automation', 'cli-auto', '--trigger', 'nope']);
    expect(none.code).toBe(1);
    expect(none.stderr).toBe(
      'nap: automation "cli-auto" has no enabled manual or endpoint trigger named "nope"; `nap get triggers` lists them\n',
    );
    // variables the trigger's schema asks for and the command did not give: the flags that give them are named
    const endpoint = { name: 'from CI', type: 'endpoint', actionId: automationId, routeName: 'cli-auto' };
    const schema = { type: 'object', properties: { device: { type: 'string' } }, required: ['device'] };
    expect((await run(['api', 'post', '/operations-manager/triggers', '--data', JSON.stringify({ ...endpoint, schema })])).code).toBe(0);
    const lacking = await run(['run', 'automation', 'cli-auto', '--trigger', 'from CI']);
    expect(lacking.code).toBe(1);
    expect(lacking.stderr).toBe(
      "nap: POST /operations-manager/triggers/endpoint/cli-auto failed: body must have required property 'device' (400 VALIDATION_FAILED); " +
        `give endpoint trigger "from CI" what it asks with --var name=value or --form-data '{"name": "value"}'\n`,
    );
    expect((await run(['run', 'automation', 'cli-auto', '--trigger', 'from CI', '--var', 'device=core-1', '--wait'])).code).toBe(0);
  });
});

describe('following a job', () => {
  it('goes on after the event stream drops, without the header again or a task twice or out of order', async () => {
    // a load balancer that cuts each event stream after 700 ms: the job's 3 s are several connections
    const proxy = await startProxy(platform.url, { cutStreamsAfterMs: 700 });
    try {
      const id = await start('cli-3steps');
      const watched = await napInProcess(['jobs', 'watch', id], {
        env: throughProxy(proxy),
      });
      expect(watched.code).toBe(0);
      const streams = proxy.seen.filter((r) => r.path === `/operations-manager/jobs/${id}/events`);
      expect(streams.length).toBeGreaterThan(1);
      const lines = watched.stderr.trimEnd().split('\n');
      expect(lines.filter((l) => l.includes(`job ${id} cli-3steps`))).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d job ${id} cli-3steps is running$`));
      const tasks = lines.slice(1).map((l) => l.replace(/^\d\d:\d\d:\d\d /, ''));
      expect(tasks).toEqual([
        expect.stringMatching(/^▶ s1 \(first\) (started|is running)$/),
        '✔ s1 (first) finished: success',
        expect.stringMatching(/^▶ s2 \(second\) (started|is running)$/),
        '✔ s2 (second) finished: success',
        expect.stringMatching(/^▶ s3 \(third\) (started|is running)$/),
        '✔ s3 (third) finished: success',
        'job complete',
      ]);
      const times = lines.slice(1).map((l) => l.slice(0, 8));
      expect(times).toEqual([...times].sort());
    } finally {
      await proxy.stop();
    }
  });

  it('says how the job went on when its stream dropped and the job ended before nap asked again', async () => {
    const basic = `Basic ${Buffer.from(`admin:${platform.password}`).toString('base64')}`;
    const statusOf = async (jobId: string): Promise<string> => {
      const res = await fetch(`${platform.url}/operations-manager/jobs/${jobId}`, { headers: { authorization: basic } });
      return ((await res.json()) as { data: { status: string } }).data.status;
    };
    let id = '';
    // the stream is cut right after the last task's start, and nap's next read of the job waits until the job ended
    const proxy = await startProxy(platform.url, {
      cutStreamsAfter: (chunk) => chunk.includes('taskStart') && chunk.includes('"s3"'),
      hold: (method, route) =>
        method === 'GET' && id !== '' && route === `/operations-manager/jobs/${id}`
          ? eventually('the job ended', async () => (await statusOf(id)) === 'complete', { timeoutMs: 30_000 })
          : undefined,
    });
    try {
      id = await start('cli-3steps');
      const watched = await napInProcess(['jobs', 'watch', id], {
        env: throughProxy(proxy),
      });
      expect(watched.code).toBe(0);
      const tasks = watched.stderr
        .trimEnd()
        .split('\n')
        .slice(1)
        .map((l) => l.replace(/^\d\d:\d\d:\d\d /, ''));
      expect(tasks.slice(-2)).toEqual(['✔ s3 (third) finished: success', 'job complete']);
      expect(tasks.filter((l) => l.startsWith('✔ s3'))).toHaveLength(1);
    } finally {
      await proxy.stop();
    }
  });

  it('follows the job on through a spell without the platform (a restart, a failover), saying so, to the exit code of the job', async () => {
    const proxy = await startProxy(platform.url);
    try {
      const running = spawnNap(['run', 'workflow', 'cli-3steps', '--follow'], throughProxy(proxy));
      const { exited } = running;
      await eventually('the run following', () => /▶ s1 \(first\)/.test(running.stderr()));
      proxy.setDown(true);
      await eventually('nap saying it lost the platform', () => running.stderr().includes('lost the platform'));
      // the job goes on meanwhile: back after it has ended, nap says how it ended
      await new Promise((resolve) => setTimeout(resolve, 3_500));
      proxy.setDown(false);
      expect(await exited).toBe(0);
      const id = /^started job (\w+) \(cli-3steps\)$/m.exec(running.stderr())![1]!;
      expect(running.stdout()).toMatch(new RegExp(`^job ${id} complete in \\d+s\n$`));
      const lines = running
        .stderr()
        .trimEnd()
        .split('\n')
        .map((l) => l.replace(/^\d\d:\d\d:\d\d /, ''));
      expect(lines).toContainEqual(
        expect.stringMatching(/^lost the platform \(connection [a-z]+\); nap follows the job again when it answers$/),
      );
      expect(lines).toContainEqual(expect.stringMatching(/^the platform answers again, after \d+s$/));
      expect(lines.filter((l) => l.startsWith('lost the platform'))).toHaveLength(1);
      expect(lines.filter((l) => l === '✔ s3 (third) finished: success')).toHaveLength(1);
      expect(lines[lines.length - 1]).toBe('job complete');
    } finally {
      await proxy.stop();
    }
  });

  it("follows on through the platform's own 503s (a service of it restarting), as through a spell without it", async () => {
    let refusing = false;
    const proxy = await startProxy(platform.url, { refuse: () => refusing });
    try {
      const running = spawnNap(['run', 'workflow', 'cli-3steps', '--follow', '-o', 'json'], throughProxy(proxy));
      const { exited } = running;
      await eventually('the run following', () => /▶ s1 \(first\)/.test(running.stderr()));
      // the stream cut, and every request answered 503 with the platform's error body for a while
      refusing = true;
      proxy.setDown(true);
      proxy.setDown(false);
      await eventually('nap saying it lost the platform', () => running.stderr().includes('lost the platform (it answered 503)'));
      await new Promise((resolve) => setTimeout(resolve, 3_500));
      refusing = false;
      expect(await exited).toBe(0);
      expect(JSON.parse(running.stdout())).toMatchObject({ name: 'cli-3steps', status: 'complete' });
      expect(running.stderr()).toMatch(/ the platform answers again, after \d+s\n/);
    } finally {
      await proxy.stop();
    }
  });

  it('exits 6 naming the job when --timeout passes while the platform is away', async () => {
    const proxy = await startProxy(platform.url);
    try {
      const id = await start('cli-slow');
      const env = throughProxy(proxy);
      const running = spawnNap(['jobs', 'watch', id, '--timeout', '3s'], env);
      const { exited } = running;
      await eventually('the watch following', () => running.stderr().includes(`job ${id} cli-slow is running`));
      proxy.setDown(true);
      expect(await exited).toBe(6);
      expect(running.stderr()).toMatch(
        new RegExp(
          `\nnap: cannot reach http://127\\.0\\.0\\.1:\\d+ \\(connection [a-z]+\\): .+; job ${id} may still be running there: \`nap jobs watch ${id}\` follows it again once the platform answers\n$`,
        ),
      );
      expect((await run(['jobs', 'cancel', id])).code).toBe(0);
    } finally {
      await proxy.stop();
    }
  });

  it('tells how a job that had ended already ended', async () => {
    const id = (await run(['run', 'workflow', 'cli-error', '--wait', '-o', 'json'])).json<Job>()._id;
    const watched = await run(['jobs', 'watch', id]);
    expect(watched.code).toBe(1);
    expect(watched.stderr).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d job ${id} cli-error had already ended\n`));
    expect(watched.stderr).toMatch(/✖ e2 \(fail on purpose\) finished: error — the device said no\n/);
    expect(watched.stderr).toMatch(/\d\d:\d\d:\d\d job ended in error: e2: .+\n$/);
  });

  it('ends with the exit code of the job when stderr is closed (| head of 2>&1)', async () => {
    const id = await start('cli-slow');
    const child = spawn(process.execPath, [NAP_BIN, 'jobs', 'watch', id, '--timeout', '1s'], {
      env: home.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stderr.destroy();
    child.stdout.resume();
    expect(await new Promise<number | null>((resolve) => child.on('close', resolve))).toBe(3);
    expect((await run(['jobs', 'cancel', id])).code).toBe(0);
  });

  it('says, on Ctrl-C, that the job goes on and how to follow it again', async () => {
    const id = await start('cli-slow');
    const running = spawnNap(['jobs', 'watch', id], home.env);
    const { child, exited } = running;
    await eventually('the watch following', () => running.stderr().includes(`job ${id} cli-slow is running`));
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(running.stderr()).toContain(
      `nap: interrupted; job ${id} goes on running: \`nap jobs watch ${id}\` follows it, \`nap jobs cancel ${id}\` stops it\n`,
    );
    expect((await run(['jobs', 'cancel', id])).code).toBe(0);
  });

  it('says the same when a CI system cancels it (SIGTERM), and exits 143 as a shell says of a process SIGTERM ended', async () => {
    const running = spawnNap(['run', 'workflow', 'cli-slow', '--follow', '-o', 'json'], home.env);
    const { child, exited } = running;
    await eventually('the run following', () => / cli-slow is running\n/.test(running.stderr()));
    const id = /^started job (\w+) \(cli-slow\)$/m.exec(running.stderr())![1]!;
    child.kill('SIGTERM');
    expect(await exited).toBe(143);
    expect(running.stderr()).toContain(
      `nap: stopped by SIGTERM; job ${id} goes on running: \`nap jobs watch ${id}\` follows it, \`nap jobs cancel ${id}\` stops it\n`,
    );
    expect(running.stdout()).toBe('');
    expect((await run(['jobs', 'cancel', id])).code).toBe(0);
  });
});

describe('nap jobs and nap tasks', () => {
  it('lists and describes jobs, and finishes a manual task', async () => {
    const id = await start('cli-manual', '--var', 'payload={"a":1}', '--description', 'needs approval');
    const task = await waitingTask(id);
    expect(task).toMatchObject({ id: 'v1', status: 'running' });
    const waiting = await run(['tasks', 'list']);
    expect(waiting.stdout).toMatch(new RegExp(`^${id}\\s+v1\\s+approve the change\\s+manual\\s+running\\s+cli-manual`, 'm'));

    const described = await run(['jobs', 'describe', id]);
    expect(described.stdout).toMatch(new RegExp(`^job ${id} cli-manual running`));
    expect(described.stdout).toMatch(/^ {2}v1\s+running\s+approve the change \[manual\]$/m);

    const finished = await run(['tasks', 'finish', id, 'approve the change', '--var', 'note=looks good']);
    expect(finished.stdout).toBe(`finished task v1 of job ${id}\n`);
    const watched = await run(['jobs', 'watch', id]);
    expect(watched.code).toBe(0);
    const job = (await run(['describe', 'job', id, '-o', 'json'])).json<Job & { variables: Record<string, unknown> }>();
    expect(job).toMatchObject({ status: 'complete', variables: { answer: 'yes' } });

    const list = await run(['jobs', 'list', '--workflow', 'cli-manual', '--status', 'complete', '--since', '1h']);
    expect(list.stdout.split('\n')[0]).toMatch(/^ID\s+WORKFLOW\s+STATUS\s+STARTED\s+DURATION\s+DESCRIPTION$/);
    expect(list.stdout).toMatch(new RegExp(`^${id}\\s+cli-manual\\s+complete\\s+\\S+\\s+\\S+\\s+needs approval$`, 'm'));
    const json = await run(['jobs', 'list', '--status', 'error', '--limit', '1', '-o', 'json']);
    expect(json.json<Job[]>()).toEqual([expect.objectContaining({ status: 'error' })]);
    // --since takes a time as nap audit list does: from then on, and nothing from the future
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
    const fromTime = await run(['jobs', 'list', '--workflow', 'cli-manual', '--since', hourAgo, '-o', 'json']);
    expect(fromTime.json<Job[]>().map((j) => j._id)).toContain(id);
    const future = await run(['jobs', 'list', '--workflow', 'cli-manual', '--since', '2999-01-01', '-o', 'json']);
    expect(future.json<Job[]>()).toEqual([]);
    expect(await run(['jobs', 'list', '--since', 'yesterday'])).toMatchObject({
      code: 4,
      stderr: 'nap: --since yesterday: expected an ISO 8601 time (2026-12-01T09:00:00Z) or a duration ago (30m, 1h, 2d)\n',
    });
  });

  it('finishes a task by a summary two tasks share when only one of them waits (a review asked again on failure)', async () => {
    const review = (id: string) => ({
      name: 'ViewData',
      app: 'WorkFlowEngine',
      type: 'manual',
      summary: 'review the results',
      groups: [],
      variables: { incoming: { header: id, message: 'Go on?', body: '', variables: '' }, outgoing: {}, error: '' },
    });
    const go = (state: string) => ({ state, type: 'standard' });
    const workflow = {
      name: 'cli-review-twice',
      type: 'automation',
      groups: [],
      tasks: {
        workflow_start: { name: 'workflow_start', groups: [] },
        workflow_end: { name: 'workflow_end', groups: [] },
        first: review('first'),
        again: review('again'),
      },
      transitions: {
        workflow_start: { first: go('success') },
        first: { workflow_end: go('success'), again: go('failure') },
        again: { workflow_end: go('success') },
        workflow_end: {},
      },
    };
    expect((await napInProcess(['create', 'workflow', '-f', '-'], { env: home.env, input: JSON.stringify(workflow) })).code).toBe(0);
    const id = await start('cli-review-twice');
    await waitingTask(id);
    const finished = await run(['tasks', 'finish', id, 'review the results', '--failure']);
    expect(finished).toMatchObject({ code: 0, stdout: `finished task first of job ${id} with failure\n` });
    await eventually('the second review waiting', async () => (await waitingTask(id)).id === 'again');
    expect((await run(['tasks', 'finish', id, 'review the results'])).stdout).toBe(`finished task again of job ${id}\n`);
    expect((await run(['jobs', 'watch', id, '--quiet'])).code).toBe(0);
  });

  it('pauses, resumes and cancels a job; watch exits 2 for a canceled job', async () => {
    const id = await start('cli-manual', '--var', 'payload=1');
    await waitingTask(id);
    expect((await run(['jobs', 'pause', id])).stdout).toBe(`paused job ${id} (paused)\n`);
    expect((await run(['jobs', 'resume', id])).stdout).toBe(`resumed job ${id} (running)\n`);
    expect((await run(['jobs', 'cancel', id])).code).toBe(0);
    const watched = await run(['jobs', 'watch', id, '--quiet']);
    expect(watched).toMatchObject({ code: 2, stderr: '' });
    const again = await run(['jobs', 'cancel', id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(new RegExp(`^nap: job ${id} not canceled: .+\\n$`));
    expect(again.stdout).toBe('');
  });

  it('says, when a job waits for a person, which task and how to finish it', async () => {
    const id = await start('cli-manual', '--var', 'payload=1');
    await waitingTask(id);
    const watched = await run(['jobs', 'watch', id, '--timeout', '1s']);
    expect(watched.code).toBe(3);
    expect(watched.stderr).toMatch(/▶ v1 \(approve the change\) is running$/m);
    expect(watched.stderr).toContain(`⏸ waits for a person: \`nap tasks finish ${id} v1\` (--failure for its "no" branch)`);
    expect(watched.stderr).toContain(`/console/jobs/${id}\n`);
    expect((await run(['jobs', 'cancel', id])).code).toBe(0);

    // reached while the watch follows: said when the task starts
    const later = await start('cli-ask-later', '--var', 'payload=1');
    const followed = await run(['jobs', 'watch', later, '--timeout', '6s']);
    expect(followed.code).toBe(3);
    expect(followed.stderr).toMatch(/▶ s1 \(wait two seconds\) is running$/m);
    expect(followed.stderr).toMatch(/▶ v1 \(approve the change\) started\n {9}⏸ waits for a person: /);
    expect(followed.stderr).toContain(`\`nap tasks finish ${later} v1\``);
    expect((await run(['jobs', 'cancel', later])).code).toBe(0);
  });

  it('cancels more jobs than one request takes, in several requests', async () => {
    // the platform cancels at most 1,000 jobs a request; these ids name no job, so none is canceled
    const ids = Array.from({ length: 1001 }, (_, i) => `no-such-job-${i}`);
    const res = await run(['jobs', 'cancel', ...ids, '-o', 'json']);
    expect(res.code).toBe(1);
    const { results } = res.json<{ results: { jobId: string; success: boolean }[] }>();
    expect(results.map((r) => r.jobId)).toEqual(ids);
    const lines = res.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1002);
    expect(lines[0]).toMatch(/^nap: job no-such-job-0 not canceled: /);
    expect(lines[1001]).toBe('nap: 1001 of 1001 jobs not canceled');
  });

  it('retries a task of a job in error with replaced variables', async () => {
    const res = await run(['run', 'workflow', 'cli-error', '--wait', '-o', 'json']);
    const id = res.json<Job>()._id;
    const retried = await run(['jobs', 'retry', id, 'e2', '--var', 'type=success']);
    expect(retried.stdout).toMatch(new RegExp(`^retried task e2 of job ${id}`));
    expect((await run(['jobs', 'watch', id, '--quiet', '--timeout', '20s'])).code).toBe(0);
  });
});

describe('nap audit', () => {
  interface AuditRecord {
    seq: number;
    operation: string;
    actor: { username: string };
    target?: { kind: string; id?: string; name?: string };
    outcome: { status: number; code?: string };
  }

  it('lists who did what to which job, verifies the chain, and exports it to resume after a seq', async () => {
    const jobId = await start('cli-complete', '--var', 'greeting=audited', '--wait');
    const listed = await run(['audit', 'list', '--operation', 'workflow.startJob', '--target', jobId, '--since', '1h', '-o', 'json']);
    expect(listed.code).toBe(0);
    // an array, as every list prints with -o json
    const results = listed.json<AuditRecord[]>();
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ operation: 'workflow.startJob', actor: { username: 'admin' }, target: { kind: 'job', id: jobId } });
    const table = await run(['audit', 'list', '--target', jobId]);
    expect(table.stdout).toMatch(/^SEQ\s+TIME\s+ACTOR\s+OPERATION\s+TARGET\s+OUTCOME\n/);
    expect(table.stdout).toMatch(
      new RegExp(`\\n${results[0]!.seq}\\s+\\S+Z\\s+admin\\s+workflow\\.startJob\\s+job cli-complete\\s+200\\n`),
    );
    // a refusal is recorded as a failure
    await napInProcess(['jobs', 'list'], { env: { ...home.env, NAP_TOKEN: 'not-a-token' } });
    const failures = (await run(['audit', 'list', '--outcome', 'failure', '-o', 'json'])).json<AuditRecord[]>();
    expect(failures.length).toBeGreaterThan(0);
    expect(failures.every((r) => r.outcome.status >= 400)).toBe(true);

    const verified = await run(['audit', 'verify']);
    expect(verified.code).toBe(0);
    expect(verified.stdout).toMatch(/^the audit chain holds: \d+ records checked\n$/);

    const file = path.join(home.home, 'audit.ndjson');
    const exported = await run(['audit', 'export', '-f', file]);
    expect(exported.code).toBe(0);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    const seqs = lines.map((line) => (JSON.parse(line) as AuditRecord).seq);
    expect(exported.stderr).toBe(`${lines.length} audit records written to ${file}\n`);
    expect(seqs).toEqual(seqs.map((_, i) => (seqs[0] ?? 0) + i));
    const after = seqs[seqs.length - 3]!;
    const resumed = await run(['audit', 'export', '--after-seq', String(after)]);
    const resumedSeqs = resumed.stdout
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as AuditRecord).seq);
    // the two records after it, then whatever was recorded since (a log-in of nap's own)
    expect(resumedSeqs.slice(0, 2)).toEqual(seqs.slice(-2));
    expect(resumedSeqs.every((s) => s > after)).toBe(true);
  });

  it('describes one record: who, what, how it ended, and each member it changed with its values before and after', async () => {
    const token = await (
      await fetch(`${platform.url}/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ user: { username: 'admin', password: platform.password } }),
      })
    ).text();
    const call = async (method: string, route: string, body: unknown): Promise<{ data: { _id: string } }> => {
      const res = await fetch(`${platform.url}${route}`, {
        method,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'user-agent': 'cli-test/1.0' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBeLessThan(300);
      return (await res.json()) as { data: { _id: string } };
    };
    const group = await call('POST', '/user-management/groups', { group: { name: 'cli-described' } });
    await call('PUT', `/user-management/groups/${group.data._id}/roles`, { roles: ['apiread'] });
    const listed = await run(['audit', 'list', '--operation', 'admin.setGroupRoles', '--target', group.data._id, '-o', 'json']);
    const seq = listed.json<AuditRecord[]>()[0]!.seq;
    // by the name people know it by, and by kind
    const byName = (await run(['audit', 'list', '--target-name', 'cli-described', '-o', 'json'])).json<AuditRecord[]>();
    expect(byName.map((r) => r.operation)).toEqual(['admin.setGroupRoles', 'admin.createGroup']);
    const byKind = (await run(['audit', 'list', '--kind', 'group', '--limit', '500', '-o', 'json'])).json<AuditRecord[]>();
    expect(byKind.length).toBeGreaterThanOrEqual(2);
    expect(byKind.every((r) => r.target?.kind === 'group')).toBe(true);

    const described = await run(['audit', 'describe', String(seq)]);
    expect(described.code).toBe(0);
    const lines = described.stdout.split('\n');
    expect(lines[0]).toBe(`Record ${seq}`);
    expect(lines).toContainEqual(expect.stringMatching(/^Actor +admin by Bearer token account \S+$/));
    expect(lines).toContainEqual(
      expect.stringMatching(new RegExp(`^Operation +admin\\.setGroupRoles  PUT /user-management/groups/:groupId/roles$`)),
    );
    expect(lines).toContainEqual(`Target     group cli-described id ${group.data._id}`);
    expect(lines).toContainEqual(expect.stringMatching(/^Outcome +200$/));
    expect(lines).toContainEqual(expect.stringMatching(/^Source +\S+ {2}cli-test\/1\.0$/));
    expect(lines).toContainEqual(expect.stringMatching(/^Previous +[0-9a-f]{64}$/));
    expect(described.stdout).toMatch(/\nChanges \(1\)\nMEMBER\s+BEFORE\s+AFTER\nroles\s+\[\]\s+\["apiread"\]\n/);
    // -o json is the record as GET /audit/:seq answers it
    expect((await run(['audit', 'describe', String(seq), '-o', 'json'])).json<AuditRecord>()).toMatchObject({
      seq,
      operation: 'admin.setGroupRoles',
    });

    const missing = await run(['audit', 'describe', String(seq + 100_000)]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/AUDIT_RECORD_NOT_FOUND|No audit record/);
    const bad = await run(['audit', 'describe', 'latest']);
    expect(bad.code).toBe(4);
    expect(bad.stderr).toBe('nap: latest: expected the seq of a record (a whole number from 1, as nap audit list shows it)\n');
  });

  it('refuses a time it cannot read, naming the flag, before asking the platform', async () => {
    const res = await run(['audit', 'list', '--since', 'yesterday']);
    expect(res.code).toBe(4);
    expect(res.stderr).toBe('nap: --since yesterday: expected an ISO 8601 time (2026-12-01T09:00:00Z) or a duration ago (30m, 1h, 2d)\n');
  });

  it('says plainly when the export file cannot be written', async () => {
    const file = path.join(home.home, 'no-such-folder', 'audit.ndjson');
    const res = await run(['audit', 'export', '-f', file]);
    expect(res.code).toBe(4);
    expect(res.stderr).toBe(`nap: cannot write ${file}: no such folder\n`);
  });
});

describe('nap jobs archive', () => {
  interface Archive {
    _id: string;
    state: string;
    origin: string;
    before: number;
    statuses: string[];
    jobs: number;
    roots: number;
    bytes: number;
    deletedBy?: string;
  }

  const DAY_MS = 86_400_000;
  const listIds = async (status: string): Promise<string[]> =>
    (await run(['jobs', 'list', '--status', status, '--limit', '500', '-o', 'json'])).json<Job[]>().map((j) => j._id);
  const archives = async (): Promise<Archive[]> => (await run(['jobs', 'archives', '--limit', '100', '-o', 'json'])).json<Archive[]>();

  it('archives finished jobs with --wait, lists the archive, downloads it, and deletes it with --yes', async () => {
    const completed = await start('cli-complete', '--var', 'greeting=archived', '--wait');
    const failed = (await run(['run', 'workflow', 'cli-error', '--wait', '-o', 'json'])).json<Job>()._id;
    // every complete or failed root job goes, the ones the tests above started too; the canceled ones stay
    const finished = await listIds('complete,error');
    expect(finished).toEqual(expect.arrayContaining([completed, failed]));
    const stopped = await start('cli-manual', '--var', 'payload=1');
    await waitingTask(stopped);
    expect((await run(['jobs', 'cancel', stopped])).code).toBe(0);
    const canceled = await listIds('canceled');
    expect(canceled).toContain(stopped);

    const before = new Date(Math.ceil((Date.now() + 60_000) / 1000) * 1000).toISOString();
    const archived = await run(['jobs', 'archive', '--before', before, '--status', 'complete,error', '--wait', '-o', 'json']);
    expect(archived.code).toBe(0);
    const archive = archived.json<Archive>();
    expect(archive).toMatchObject({
      state: 'complete',
      origin: 'request',
      before: Date.parse(before),
      statuses: ['complete', 'error'],
      jobs: finished.length,
      roots: finished.length,
    });
    const id = archive._id;
    expect(await listIds('complete,error')).toEqual([]);
    expect((await listIds('canceled')).sort()).toEqual([...canceled].sort());
    expect((await run(['jobs', 'describe', completed])).code).toBe(1);

    // a duration is that long ago: nothing ended a day ago, so this archive is empty
    const empty = await run(['jobs', 'archive', '--before', '1d', '--wait']);
    expect(empty.code).toBe(0);
    const shown = /^archive (\S+) complete: 0 jobs \(0 root jobs\) that ended before (\S+) \(complete, error, canceled\), 0 B\n$/.exec(
      empty.stdout,
    );
    expect(shown).not.toBeNull();
    expect(Math.abs(Date.parse(shown![2]!) - (Date.now() - DAY_MS))).toBeLessThan(60_000);
    expect(empty.stderr).toBe(`\`nap jobs archive-download ${shown![1]}\` saves its file\n`);

    const list = await run(['jobs', 'archives']);
    expect(list.code).toBe(0);
    const lines = list.stdout.split('\n');
    expect(lines[0]).toMatch(/^ID\s+STATE\s+ORIGIN\s+JOBS\s+ROOTS\s+SIZE\s+BEFORE\s+COMPLETED$/);
    // newest first
    expect(lines[1]).toMatch(new RegExp(`^${shown![1]}\\s+complete\\s+request\\s+0\\s+0\\s+0 B\\s`));
    const n = finished.length;
    expect(lines[2]).toMatch(
      new RegExp(`^${id}\\s+complete\\s+request\\s+${n}\\s+${n}\\s+\\d+(\\.\\d)? K?i?B\\s+${before.replace('.000Z', 'Z')}\\s+\\S+Z$`),
    );

    // saved byte for byte to <id>.ndjson.gz in the current folder: gzip of one job a line
    const saved = await napInProcess(['jobs', 'archive-download', id], { env: home.env, cwd: home.home });
    expect(saved.code).toBe(0);
    const file = path.join(home.home, `${id}.ndjson.gz`);
    expect(saved.stdout).toMatch(new RegExp(`^saved archive ${id} to ${id}\\.ndjson\\.gz \\(${archive.bytes} bytes, `));
    expect(statSync(file).size).toBe(archive.bytes);
    const jobs = gunzipSync(readFileSync(file))
      .toString('utf8')
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as Job)._id);
    expect(jobs.sort()).toEqual([...finished].sort());
    const again = await napInProcess(['jobs', 'archive-download', id], { env: home.env, cwd: home.home });
    expect(again).toMatchObject({ code: 4, stderr: `nap: ${id}.ndjson.gz exists: nap does not overwrite it without --force\n` });
    expect(statSync(file).size).toBe(archive.bytes);

    const deleted = await run(['jobs', 'archive-delete', id, '--yes']);
    expect(deleted.code).toBe(0);
    expect(deleted.stdout).toBe(
      `deleted archive ${id} (${n} jobs): the platform no longer has its file, so keep your downloaded copy elsewhere\n`,
    );
    expect((await archives()).find((a) => a._id === id)).toMatchObject({ state: 'deleted', deletedBy: 'admin', jobs: n });
    const listed = await run(['jobs', 'archives', '--state', 'deleted']);
    expect(listed.stdout).toMatch(/^ID\s+STATE\s+ORIGIN\s+JOBS\s+ROOTS\s+SIZE\s+BEFORE\s+COMPLETED\s+DELETED\n/);
    expect(listed.stdout).toMatch(new RegExp(`\\n${id}\\s+deleted\\s+request\\s+${n}\\s+${n}\\s.*\\S+Z by admin\\n$`));

    // its file is gone: a download says so (410), and leaves no file behind
    const other = path.join(home.home, 'gone.ndjson.gz');
    const gone = await run(['jobs', 'archive-download', id, '--file', other]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(
      new RegExp(
        `^nap: GET /operations-manager/jobs/archives/${id} failed: Job archive "${id}" was deleted on \\S+ by admin; its file is gone \\(410 JOB_ARCHIVE_DELETED\\)\\n$`,
      ),
    );
    expect(existsSync(other)).toBe(false);
    expect(existsSync(`${other}.part`)).toBe(false);
  });

  it('refuses to delete an archive without --yes when stdin is not a terminal', async () => {
    const archived = await run(['jobs', 'archive', '--before', '2000-01-01', '--wait', '-o', 'json']);
    expect(archived.code).toBe(0);
    const archive = archived.json<Archive>();
    expect(archive).toMatchObject({ state: 'complete', before: Date.parse('2000-01-01T00:00:00Z'), jobs: 0 });
    const refused = await run(['jobs', 'archive-delete', archive._id]);
    expect(refused).toMatchObject({
      code: 4,
      stdout: '',
      stderr: `nap: stdin is not a terminal, so nap cannot ask to confirm: add --yes to delete the file of archive ${archive._id}\n`,
    });
    expect((await archives()).find((a) => a._id === archive._id)?.state).toBe('complete');
  });

  it('refuses a --before or --status it cannot read, naming the option, before asking the platform; --timeout exits 3', async () => {
    const count = (await archives()).length;
    const bad = await run(['jobs', 'archive', '--before', 'last week']);
    expect(bad).toMatchObject({
      code: 4,
      stderr: 'nap: --before last week: expected an ISO 8601 time (2026-12-01T09:00:00Z) or a duration ago (30m, 1h, 2d)\n',
    });
    const running = await run(['jobs', 'archive', '--before', '90d', '--status', 'complete,running']);
    expect(running.code).toBe(4);
    expect(running.stderr).toMatch(/^nap: --status complete,running: expected finished statuses/);
    expect((await run(['jobs', 'archive'])).code).toBe(4);
    expect(await archives()).toHaveLength(count);

    // the platform answers a request at once, while the archive fills: a timeout of nothing gives up then
    const waited = await run(['jobs', 'archive', '--before', '2000-01-01', '--timeout', '0s']);
    expect(waited.code).toBe(3);
    expect(waited.stderr).toMatch(
      /^nap: archive \S+ is still running after 0ms \(--timeout\), 0 jobs so far; `nap jobs archives` shows when it is complete\n$/,
    );
  });
});
