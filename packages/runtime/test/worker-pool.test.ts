import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { hasCode } from '@nap/contracts';
import { createWorkerPool, isWorkerPoolClosed, WorkerPoolError } from '@nap/runtime';
import type { WorkerPool, WorkerPoolOptions, WorkerPoolOutcome } from '@nap/runtime';

/**
 * The time-limited worker pool that runs users' regular expressions, diffs and JSON Schema checks:
 * driven here with a worker (test/fixtures/pool-worker.js) that answers, overruns, throws, exits or
 * runs out of heap as each job asks.
 */

const WORKER = path.join(__dirname, 'fixtures/pool-worker.js');
const BUILT = path.resolve(__dirname, '../dist/index.js');

type Job =
  | { op: 'echo'; value: unknown }
  | { op: 'threadId' | 'forever' | 'fail' | 'throw' | 'oom' | 'retire' }
  | { op: 'exit'; code: number }
  | { op: 'steps'; count: number; ms: number }
  | { op: 'clone'; fn: () => void };

const pools: WorkerPool<Job, unknown, number>[] = [];

function pool(options: Partial<WorkerPoolOptions> = {}): WorkerPool<Job, unknown, number> {
  const created = createWorkerPool<Job, unknown, number>({ name: 'test', script: WORKER, timeoutMs: 5_000, ...options });
  pools.push(created);
  return created;
}

afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

async function threadOf(p: WorkerPool<Job, unknown, number>): Promise<unknown> {
  const out = await p.run({ op: 'threadId' });
  if (out.kind !== 'done') throw new Error(`threadId answered ${JSON.stringify(out)}`);
  return out.value;
}

it('answers every job, across its workers, with what the worker answered', async () => {
  const p = pool({ size: 3 });
  const out = await Promise.all(Array.from({ length: 30 }, (_, i) => p.run({ op: 'echo', value: { i } })));
  expect(out).toEqual(Array.from({ length: 30 }, (_, i) => ({ kind: 'done', value: { i } })));
  expect(await p.run({ op: 'fail' })).toEqual({ kind: 'failed', message: 'the job said no' });
  expect({ replaced: p.replaced, queued: p.queued, running: p.running }).toEqual({ replaced: 0, queued: 0, running: 0 });
});

it('starts a job’s clock only once its worker said it is ready', async () => {
  // the worker takes five times the job limit to start (and is there, started early, when the job comes):
  // counted against the job, the wait would time it out
  const p = pool({ timeoutMs: 300, prestart: true, workerOptions: { workerData: { readyAfterMs: 1_500 } } });
  expect(await p.run({ op: 'echo', value: 'first' })).toEqual({ kind: 'done', value: 'first' });
  expect(p.replaced).toBe(0);
});

it('starts every worker at the first job with prestart first-job, none before', async () => {
  const p = pool({ size: 2, prestart: 'first-job' });
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(p.workers).toBe(0);
  expect(await p.run({ op: 'echo', value: 'first' })).toEqual({ kind: 'done', value: 'first' });
  expect(p.workers).toBe(2);
  // a worker that goes is replaced at once, as with prestart true
  expect(await p.run({ op: 'exit', code: 3 })).toMatchObject({ kind: 'crashed' });
  expect(p.workers).toBe(2);
});

it('terminates a worker whose job overruns, answers that job timedOut, and runs the jobs queued behind it on a new worker', async () => {
  const p = pool({ size: 1, timeoutMs: 300 });
  const before = await threadOf(p);
  const answered: string[] = [];
  const stuck = p.run({ op: 'forever' }).then((o) => (answered.push('stuck'), o));
  const behind = p.run({ op: 'echo', value: 'behind' }).then((o) => (answered.push('behind'), o));
  expect(await stuck).toEqual({ kind: 'timedOut', timeoutMs: 300 });
  expect(await behind).toEqual({ kind: 'done', value: 'behind' });
  expect(answered).toEqual(['stuck', 'behind']);
  expect(p.replaced).toBe(1);
  expect(await threadOf(p)).not.toBe(before);
});

it('starts the clock again at each progress message of a job', async () => {
  // 15 steps of 100 ms: each well within the 1 s limit, all of them past it
  const p = pool({ timeoutMs: 1_000 });
  const progress: number[] = [];
  const out = await p.run({ op: 'steps', count: 15, ms: 100 }, { onProgress: (step) => progress.push(step) });
  expect(out).toEqual({ kind: 'done', value: 'all steps' });
  expect(progress).toEqual(Array.from({ length: 15 }, (_, i) => i));
});

describe('a worker that dies fails only the job it ran and is replaced', () => {
  it.each([
    ['throws at top level', { op: 'throw' } as Job, {}, { message: 'thrown at top level' }, false],
    ['exits', { op: 'exit', code: 3 } as Job, {}, { message: 'the test worker exited with code 3' }, false],
    ['runs out of heap', { op: 'oom' } as Job, { resourceLimits: { maxOldGenerationSizeMb: 16 } }, {}, true],
  ])('when it %s', async (_, job, workerOptions, error, outOfMemory) => {
    const p = pool({ size: 1, timeoutMs: 30_000, workerOptions });
    const before = await threadOf(p);
    const dying = p.run(job);
    const behind = p.run({ op: 'echo', value: 'behind' });
    expect(await dying).toEqual({ kind: 'crashed', error: expect.objectContaining(error), outOfMemory });
    expect(await behind).toEqual({ kind: 'done', value: 'behind' });
    expect(p.replaced).toBe(1);
    expect(await threadOf(p)).not.toBe(before);
  });
});

it('rejects the queued jobs when a worker cannot start, and tries a new one at the next job', async () => {
  const p = pool({ size: 2, workerOptions: { workerData: { throwAtStart: true } } });
  const failures = await Promise.all(
    [p.run({ op: 'echo', value: 1 }), p.run({ op: 'echo', value: 2 })].map((r) => r.catch((e: unknown) => e)),
  );
  for (const failure of failures) {
    expect(failure).toBeInstanceOf(WorkerPoolError);
    expect(failure).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      reason: 'start',
      message: 'The test worker could not start: broken at start',
    });
  }
  await expect(p.run({ op: 'echo', value: 3 })).rejects.toMatchObject({ reason: 'start' });
  expect(p.replaced).toBe(0);
});

it('gives up on a worker that does not say it is ready within startTimeoutMs', async () => {
  const p = pool({ startTimeoutMs: 300, workerOptions: { workerData: { neverReady: true } } });
  await expect(p.run({ op: 'echo', value: 1 })).rejects.toMatchObject({
    code: 'SERVICE_UNAVAILABLE',
    message: 'The test worker could not start: it did not say it was ready within 300 ms',
  });
});

it('rejects the jobs queued and running when closed, terminates its workers and refuses new jobs', async () => {
  const p = pool({ size: 1, timeoutMs: 60_000 });
  await threadOf(p);
  const running = p.run({ op: 'forever' }).catch((e: unknown) => e);
  const queued = p.run({ op: 'echo', value: 'queued' }).catch((e: unknown) => e);
  await p.close();
  for (const err of [await running, await queued]) {
    expect(isWorkerPoolClosed(err)).toBe(true);
    expect(hasCode(err, 'SERVICE_UNAVAILABLE')).toBe(true);
    expect(err).toMatchObject({ message: 'The test worker pool is closed' });
  }
  const refused: unknown = await p.run({ op: 'echo', value: 'late' }).catch((e: unknown) => e);
  expect(isWorkerPoolClosed(refused)).toBe(true);
  expect({ replaced: p.replaced, queued: p.queued, running: p.running }).toEqual({ replaced: 0, queued: 0, running: 0 });
});

it('answers expired for a job whose deadline passed before it started, and queues a job first when asked', async () => {
  const p = pool({ size: 1, timeoutMs: 60_000 });
  expect(await p.run({ op: 'echo', value: 'late' }, { deadline: Date.now() - 1 })).toEqual({ kind: 'expired' });
  const order: unknown[] = [];
  const record = (o: WorkerPoolOutcome<unknown>) => order.push(o.kind === 'done' ? o.value : o.kind);
  // the worker is busy with the steps while the other two queue
  const all = [
    p.run({ op: 'steps', count: 3, ms: 50 }).then(record),
    p.run({ op: 'echo', value: 'second asked' }).then(record),
    p.run({ op: 'echo', value: 'asked first' }, { first: true }).then(record),
  ];
  await Promise.all(all);
  expect(order).toEqual(['all steps', 'asked first', 'second asked']);
});

it('replaces a worker that asks to retire after its answer, without counting it as replaced', async () => {
  const p = pool({ size: 1 });
  const before = await threadOf(p);
  expect(await p.run({ op: 'retire' })).toEqual({ kind: 'done', value: 'retiring' });
  expect(await threadOf(p)).not.toBe(before);
  expect(p.replaced).toBe(0);
});

it('fails a job that cannot be sent to a worker, and goes on', async () => {
  const p = pool({ size: 1 });
  expect(await p.run({ op: 'clone', fn: () => undefined })).toMatchObject({
    kind: 'failed',
    message: expect.stringContaining('could not be sent to the test worker'),
  });
  expect(await p.run({ op: 'echo', value: 'next' })).toEqual({ kind: 'done', value: 'next' });
});

describe('the life of the process', () => {
  /** Runs `lines` as an ES module script in a new node process; answers its exit code (null when killed after 20 s) and output. */
  async function script(lines: string[]): Promise<{ code: number | null; stdout: string }> {
    if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run \`npm run build\` in packages/runtime first`);
    const source = [
      `import { createRequire } from 'node:module';`,
      `const { createWorkerPool } = createRequire(${JSON.stringify(__filename)})(${JSON.stringify(BUILT)});`,
      `const options = { name: 'test', script: ${JSON.stringify(WORKER)}, timeoutMs: 60000 };`,
      ...lines,
    ].join('\n');
    return new Promise((resolve) => {
      const child = execFile(process.execPath, ['--input-type=module', '-e', source], { timeout: 20_000 }, (err, stdout) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout: stdout.trim() }),
      );
      child.stdin?.end();
    });
  }

  it('is kept alive while the pool has work, and ends once it is idle, unclosed', async () => {
    // a top-level await whose only pending work is the pool's: were the workers unref'd, it would exit 13
    const out = await script([
      `const pool = createWorkerPool({ ...options, size: 2, prestart: true });`,
      `const answer = await pool.run({ op: 'steps', count: 3, ms: 50 });`,
      `console.log(JSON.stringify(answer));`,
    ]);
    expect(out).toEqual({ code: 0, stdout: JSON.stringify({ kind: 'done', value: 'all steps' }) });
  });

  it('ends once the pool is closed, whatever its workers were doing', async () => {
    const out = await script([
      `const pool = createWorkerPool({ ...options, size: 1, startTimeoutMs: 60000 });`,
      `await pool.run({ op: 'echo', value: 0 });`,
      `const running = pool.run({ op: 'forever' }).catch((e) => e.message);`,
      `const queued = pool.run({ op: 'echo', value: 1 }).catch((e) => e.message);`,
      `await pool.close();`,
      `console.log(JSON.stringify([await running, await queued]));`,
    ]);
    expect(out).toEqual({ code: 0, stdout: JSON.stringify(['The test worker pool is closed', 'The test worker pool is closed']) });
  });
});
