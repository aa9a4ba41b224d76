import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { JobDocument, WorkflowDocument } from '@nap/contracts';
import { eventually, onSmallDisk, smallDiskAvailable, task, workflowDocument } from '@nap/testing';
import { jobReaching, waitingTask } from '../support/automation';
import { call, login } from '../support/http';
import { startStandaloneAsDocumented } from '../support/processes';
import type { NapProcess } from '../support/processes';

/**
 * The disk under a laptop's platform fills up. The standalone platform (`npm start`'s entry) runs on
 * a small disk of its own (a tmpfs mounted in a mount namespace of its process, so nothing is
 * mounted on the machine), which the test fills with a file until less is free than the platform
 * keeps (`NAP_DATA_MIN_FREE_MB`). Every write is then refused with `507 STORE_FULL` before anything
 * is written, reads go on, the process stays up (it used to end on LMDB's unhandled commit
 * failure), a job whose task ends meanwhile holds its step, and once the file is removed the
 * platform goes on by itself: both jobs finish, and the audit chain holds. The task that ends while
 * the disk is full calls a system of the test's (restCall), which answers only once the test has seen
 * the stores find the disk full: no delay decides the order.
 *
 * With no free space kept (`NAP_DATA_MIN_FREE_MB=0`), LMDB itself fails a step's write on the full
 * disk, and part of it may be kept. The job holds its step, asks the store whether it has it once
 * the store answers, and ends once there is room (before, it stayed running with a task that nothing
 * ran).
 */

const ADMIN_PASSWORD = 'disk-full-admin-password';
/** The free space, MiB, the platform under test keeps (`NAP_DATA_MIN_FREE_MB`). */
const KEEP_MIB = 16;

const itMounts = smallDiskAvailable('the full-disk test of the platform') ? it : it.skip;

let work: string;
/** The platforms the tests started, stopped after them when a test failed before stopping its own. */
const started: NapProcess[] = [];
/** The systems the tests' jobs call, closed after them. */
const systems: HeldSystem[] = [];

beforeAll(() => {
  work = mkdtempSync(path.join(os.tmpdir(), 'nap-e2e-disk-full-'));
});

afterAll(async () => {
  for (const nap of started) if (nap.child.exitCode === null && nap.child.signalCode === null) await nap.stop();
  for (const system of systems) await system.close();
  rmSync(work, { recursive: true, force: true });
}, 30_000);

/** A system a job's restCall task calls: it holds each request until the test answers its path. */
interface HeldSystem {
  url: string;
  /** How many requests for `path` came in. */
  received(path: string): number;
  /** Answers the held requests for `path`, and any later one, 200 with `body` (text). */
  answer(path: string, body: string): void;
  close(): Promise<void>;
}

async function startHeldSystem(): Promise<HeldSystem> {
  const paths = new Map<string, { hits: number; body?: string; held: http.ServerResponse[] }>();
  const pathOf = (p: string) => {
    let entry = paths.get(p);
    if (entry === undefined) {
      entry = { hits: 0, held: [] };
      paths.set(p, entry);
    }
    return entry;
  };
  const send = (res: http.ServerResponse, body: string) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(body);
  };
  const server = http.createServer((req, res) => {
    const entry = pathOf(req.url ?? '/');
    entry.hits += 1;
    if (entry.body === undefined) entry.held.push(res);
    else send(res, entry.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received: (p) => pathOf(p).hits,
    answer(p, body) {
      const entry = pathOf(p);
      entry.body = body;
      for (const res of entry.held.splice(0)) send(res, body);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Runs a command in the platform's mount namespace, where its small disk is mounted. */
function inPlatformNamespace(pid: number, command: string[]): { status: number | null; out: string } {
  const run = spawnSync('nsenter', ['-t', String(pid), '-m', '--', ...command], { encoding: 'utf8' });
  return { status: run.status, out: `${run.stdout}${run.stderr}` };
}

/** A platform of a test on a small disk of its own, and what the test needs of it. */
interface PlatformOnSmallDisk {
  nap: NapProcess;
  url: string;
  /** Its process, whose mount namespace has the disk (see {@link inPlatformNamespace}). */
  pid: number;
  /** Where the disk is mounted. */
  disk: string;
  /** The administrator's token. */
  admin: string;
  /** The system its jobs call. */
  system: HeldSystem;
}

/**
 * The standalone platform on a 64 MiB disk of its own at `<work>/<name>` with `env`, signed in as
 * its administrator, and a held system for its jobs to call; both stopped after the tests.
 */
async function startOnSmallDisk(name: string, env: Record<string, string>): Promise<PlatformOnSmallDisk> {
  const disk = path.join(work, name);
  mkdirSync(disk);
  const { nap, url } = await startStandaloneAsDocumented(path.join(disk, 'data'), ADMIN_PASSWORD, {
    env,
    prefix: onSmallDisk(disk, 64),
  });
  started.push(nap);
  const admin = await login(url, 'admin', ADMIN_PASSWORD);
  const system = await startHeldSystem();
  systems.push(system);
  return { nap, url, pid: nap.child.pid as number, disk, admin, system };
}

/** A workflow `name` whose task s1 calls `uri` into `$var.job.<into>`, then s2 answers `two` into `$var.job.second`. */
function callThenStub(name: string, uri: string, into: string): WorkflowDocument {
  return workflowDocument(
    name,
    {
      s1: task('restCall', { uri, verb: 'GET', timeout: 120_000 }, { response: `$var.job.${into}` }),
      s2: task('stub', { type: 'success', delay: 0, response: 'two' }, { response: '$var.job.second' }),
    },
    [
      ['workflow_start', 's1'],
      ['s1', 's2'],
      ['s2', 'workflow_end'],
    ],
  );
}

/** `GET /operations-manager/jobs/:id` (with `query`), the job; throws on any other status than 200. */
async function readJobAt(url: string, token: string, jobId: string, query = ''): Promise<JobDocument> {
  const res = await call(url, token, 'GET', `/operations-manager/jobs/${jobId}${query}`);
  if (res.status !== 200) throw new Error(`GET job: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as { data: JobDocument }).data;
}

itMounts(
  'refuses writes with STORE_FULL below the free space it keeps, serves reads, holds a job’s step, and goes on by itself once there is room',
  async () => {
    const { nap, url, pid, disk, admin, system } = await startOnSmallDisk('disk', { NAP_DATA_MIN_FREE_MB: String(KEEP_MIB) });

    // a job waits for a person before the disk fills; another runs a task that ends while it is full
    const waiting = workflowDocument(
      'disk-window',
      { v1: waitingTask(), a1: task('stringConcat', { str: 'after ', stringN: 'the disk' }, { combinedStrings: '$var.job.greeting' }) },
      [
        ['workflow_start', 'v1'],
        ['v1', 'a1'],
        ['a1', 'workflow_end'],
      ],
    );
    // it ends when the system it calls answers: once the test has seen the stores find the disk full
    const running = callThenStub('disk-running', `${system.url}/first`, 'first');
    for (const automation of [waiting, running])
      expect((await call(url, admin, 'POST', '/automation-studio/automations', { automation })).status).toBe(200);
    const startJob = (name: string) =>
      call(url, admin, 'POST', `/workflow_engine/startJobWithOptions/${name}`, { options: { variables: {} } });
    const readJob = (jobId: string) => readJobAt(url, admin, jobId);
    const waitingId = ((await startJob('disk-window')).body as JobDocument)._id;
    await jobReaching(
      'the job waiting for a person',
      () => readJob(waitingId),
      (j) => j.tasks.v1?.status === 'running',
    );
    const runningStart = await startJob('disk-running');
    expect(runningStart.status).toBe(200);
    const runningId = (runningStart.body as JobDocument)._id;
    // its first task is in flight (its start is written before the call goes out)
    await eventually('the running job calling the system', () => system.received('/first') === 1);

    // the disk fills up until less is free than the platform keeps
    const avail = Number(inPlatformNamespace(pid, ['df', '--output=avail', '-B1', disk]).out.trim().split('\n').at(-1));
    const fillMib = Math.floor((avail - (KEEP_MIB / 2) * 1024 * 1024) / (1024 * 1024));
    expect(fillMib).toBeGreaterThan(0);
    const filled = inPlatformNamespace(pid, ['dd', 'if=/dev/zero', `of=${path.join(disk, 'filler')}`, 'bs=1M', `count=${fillMib}`]);
    expect(filled.status).toBe(0);

    // each store reads the disk's free space at most every 250 ms: the admin store once its health says
    // full (that reads it), the workflow store once its heartbeat fails
    const storeHealth = async () => {
      const health = (await call(url, admin, 'GET', '/health/status')).body as {
        status: string;
        services: { service: string; status: string }[];
      };
      return { status: health.status, store: health.services.find((s) => s.service === 'store (embedded)') };
    };
    await eventually('the admin store seeing the disk full', async () => (await storeHealth()).store?.status === 'full');
    await eventually('the workflow store seeing the disk full', () => /Renewing the engine heartbeat failed/.test(nap.output()));
    // the running job's first task ends now, while the disk is full
    system.answer('/first', 'one');
    const refused = await call(url, admin, 'POST', '/user-management/groups', { group: { name: 'while-full' } });
    expect(refused.status).toBe(507);
    expect(refused.body).toMatchObject({
      code: 'STORE_FULL',
      details: { nothingWritten: true, minFreeBytes: KEEP_MIB * 1024 * 1024 },
      message: expect.stringMatching(
        new RegExp(
          `^The disk under the embedded store at ".+" has \\d+\\.\\d MiB free, less than the ${KEEP_MIB}\\.0 MiB it keeps \\(NAP_DATA_MIN_FREE_MB\\); nothing of the write was kept\\.`,
        ),
      ) as unknown,
    });

    // further writes are refused the same way: a job start, a person's answer to the waiting task
    expect(await startJob('disk-window')).toMatchObject({ status: 507, body: { code: 'STORE_FULL' } });
    const finishWhileFull = await call(url, admin, 'POST', `/operations-manager/jobs/${waitingId}/tasks/v1/finish`, { variables: {} });
    expect(finishWhileFull).toMatchObject({ status: 507, body: { code: 'STORE_FULL' } });

    // reads go on; the running job's first task ended while the disk was full, and its step waits in memory
    await eventually('the running job holding its step', () =>
      /The store is full: the job keeps its step and writes it once there is room/.test(nap.output()),
    );
    expect((await readJob(waitingId)).tasks.v1?.status).toBe('running');
    const held = await readJob(runningId);
    expect({ status: held.status, s1: held.tasks.s1?.status }).toEqual({ status: 'running', s1: 'running' });
    expect((await call(url, admin, 'GET', '/user-management/groups?limit=500')).status).toBe(200);
    expect(nap.child.exitCode).toBeNull();
    // the health of the platform says why
    const whileFull = await storeHealth();
    expect(whileFull).toMatchObject({ status: 'degraded', store: { status: 'full', disk: { minFreeBytes: KEEP_MIB * 1024 * 1024 } } });
    expect((whileFull.store as unknown as { disk: { freeBytes: number } }).disk.freeBytes).toBeLessThan(KEEP_MIB * 1024 * 1024);

    // room again: the platform goes on by itself, without a restart
    expect(inPlatformNamespace(pid, ['rm', path.join(disk, 'filler')]).status).toBe(0);
    await eventually('a write after the disk has room', async () => {
      const after = await call(url, admin, 'POST', '/user-management/groups', { group: { name: 'after-the-disk' } });
      return after.status === 200;
    });
    // 64 MiB less the data is under four times the 16 MiB kept: low on space, and running
    expect(await storeHealth()).toMatchObject({ status: 'running', store: { status: 'low on space' } });
    const ran = await jobReaching(
      'the running job finished',
      () => readJob(runningId),
      (j) => j.status === 'complete',
    );
    expect(ran.variables).toMatchObject({ first: { status: 200, body: 'one' }, second: 'two' });
    // the held step was written, not run again
    expect(system.received('/first')).toBe(1);
    const finished = await call(url, admin, 'POST', `/operations-manager/jobs/${waitingId}/tasks/v1/finish`, { variables: {} });
    expect(finished.status).toBe(200);
    const done = await jobReaching(
      'the waiting job finished',
      () => readJob(waitingId),
      (j) => j.status === 'complete',
    );
    expect(done.variables).toMatchObject({ greeting: 'after the disk' });

    // nothing refused was written: the refused group does not exist, the one made after does
    const listed = await call(url, admin, 'GET', '/user-management/groups?limit=500');
    const names = (listed.body as { results: { name: string }[] }).results.map((g) => g.name);
    expect(names).toContain('after-the-disk');
    expect(names).not.toContain('while-full');
    const verify = await call(url, admin, 'GET', '/audit/verify');
    expect(verify).toMatchObject({ status: 200, body: { valid: true, firstBroken: null } });

    // the operator reads why, once per kind of write rather than once a second, and the process never stopped
    await eventually('the heartbeat saying it works again', () => /Renewing the engine heartbeat works again/.test(nap.output()));
    const output = nap.output();
    expect(output).toMatch(/The store had room again: the job wrote its step/);
    expect(output).toMatch(/Renewing the engine heartbeat failed; it is tried again/);
    expect(output.match(/Renewing the engine heartbeat/g)?.length).toBeLessThanOrEqual(4);
    expect(output).not.toMatch(/Unhandled|Commit failed \(see commitError/);
    expect(nap.child.exitCode).toBeNull();
    expect(await nap.stop()).toBe(0);
  },
  180_000,
);

itMounts(
  'with no free space kept (NAP_DATA_MIN_FREE_MB=0), a step whose write LMDB failed part-way is held, and the job ends once there is room',
  async () => {
    const { nap, url, pid, disk, admin, system } = await startOnSmallDisk('disk-no-reserve', { NAP_DATA_MIN_FREE_MB: '0' });

    // the task's answer is 3 MiB (the system's, once the disk is full), which the step writes out of the job document: it needs new pages
    // of LMDB's file, which a full disk cannot give (a small write could reuse freed ones)
    const echo = callThenStub('disk-echo', `${system.url}/echo`, 'echoed');
    expect((await call(url, admin, 'POST', '/automation-studio/automations', { automation: echo })).status).toBe(200);
    const payload = 'x'.repeat(3 * 1024 * 1024);
    const start = await call(url, admin, 'POST', '/workflow_engine/startJobWithOptions/disk-echo', { options: { variables: {} } });
    expect(start.status).toBe(200);
    const jobId = (start.body as JobDocument)._id;
    const readJob = () => readJobAt(url, admin, jobId, '?exclude=variables');
    // s1 is in flight (its start is written before the call goes out)
    await eventually('s1 calling the system', () => system.received('/echo') === 1);

    // the disk fills up to its last page: dd ends on ENOSPC
    const filled = inPlatformNamespace(pid, ['dd', 'if=/dev/zero', `of=${path.join(disk, 'filler')}`, 'bs=1M']);
    expect(filled.out).toMatch(/No space left on device/);

    // s1 ends now: LMDB fails the step's write on the full disk (STORE_FULL, part of it may be kept); the
    // engine holds the step and asks the store, once it answers, whether it has it
    system.answer('/echo', payload);
    await eventually('the step write failing', () => /The store did not say whether it wrote the step|Job step failed/.test(nap.output()));
    expect(nap.child.exitCode).toBeNull();
    expect(inPlatformNamespace(pid, ['rm', path.join(disk, 'filler')]).status).toBe(0);
    const done = await jobReaching('the job finished', readJob, (j) => j.status === 'complete', { timeoutMs: 30_000 });
    expect(done.error).toEqual([]);
    const whole = (await call(url, admin, 'GET', `/operations-manager/jobs/${jobId}`)).body as {
      data: { variables: Record<string, unknown> };
    };
    const { variables } = whole.data;
    const echoed = variables.echoed as { status: number; body: string };
    expect({ status: echoed.status, echoed: echoed.body.length, second: variables.second }).toEqual({
      status: 200,
      echoed: payload.length,
      second: 'two',
    });
    expect(system.received('/echo')).toBe(1);
    expect(nap.output()).toMatch(/The store did not say whether it wrote the step: the job keeps its step/);
    expect(nap.output()).toMatch(/The store answers again: (the job wrote its step|it had written the step)/);
    expect(nap.output()).not.toMatch(/Job step failed|Unhandled/);
    expect(await nap.stop()).toBe(0);
  },
  180_000,
);
