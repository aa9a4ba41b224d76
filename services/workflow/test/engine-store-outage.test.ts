import { SYSTEM_CALLER } from '@nap/contracts';
import { eventually, task, workflowDocument } from '@nap/testing';
import type { JobRecord } from '../src/domain/job-model';
import { TestClock } from './support/clock';
import type { EngineHarness } from './support/harness';
import { sharedWith, startEngineHarness, stoppedAfterEach } from './support/harness';
import { parentOf } from './support/child-job';
import { StoreOutage } from './support/outage';
import type { CallMatch } from './support/outage';
import { COMPLETE_STREAM, counter, streamOf, twoRemote } from './support/remote-tasks';

/**
 * The store fails under a running job as MongoDB does in a failover or a network cut
 * (`STORE_UNAVAILABLE`): a step's write fails with its outcome unknown, or every call fails for a
 * while. The engine holds the step (the results of the tasks that ended) until the store answers,
 * learns from the store whether the write was applied, and goes on: the job ends, no task runs
 * twice, and its events reach consumers in order, each under its seq.
 */

const harnesses = stoppedAfterEach();

/** Which engine the job is leased to, as the store has it. */
async function leaseOf(h: EngineHarness, jobId: string): Promise<string | undefined> {
  return (await h.store.collection<JobRecord>('jobs').findOne({ _id: jobId }))?.lease;
}

async function engine(outage: StoreOutage): Promise<EngineHarness> {
  const h = await startEngineHarness({ serverId: 'outage' }, undefined, outage);
  harnesses.push(h);
  return h;
}

/** The write of a job's step: the update of the job that this engine owns, with the step's events. */
const stepWrite: CallMatch = (collection, method, args) => {
  const filter = args[0] as Record<string, unknown>;
  return (
    collection === 'jobs' &&
    (method === 'findOneAndUpdate' || method === 'updateOne') &&
    'metrics.server_id' in filter &&
    'status' in filter
  );
};

/**
 * The job's events as a consumer keeps them: each once, in order, under seq 1 to 6. A repeat under
 * the same seq is what delivery at least once allows (the relay reads the store after a write it
 * did not see answered, and may publish from a view an acknowledgement overtook); consumers drop it.
 */
function expectEachEventOnce(h: EngineHarness, jobId: string): void {
  expect(streamOf(h.events, jobId)).toMatchObject({ names: COMPLETE_STREAM, seqs: [1, 2, 3, 4, 5, 6] });
}

function taskStatuses(job: JobRecord): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(job.tasks).map(([id, t]) => [id, t.status]));
}

describe('a step whose write fails with its outcome unknown', () => {
  it.each([
    ['was applied (the answer was lost)', true],
    ['was not applied', false],
  ])('%s: the job ends, each task ran once, its events come in order under their seq', async (_what, applied) => {
    const outage = new StoreOutage();
    const h = await engine(outage);
    const { runs, handler } = counter();
    h.services.set('mop.RunCommandTemplate', async (input) => {
      const answer = await handler(input);
      // the write that stores m1's result (and m2 running) fails
      if ((input.body as { step: number }).step === 1) outage.failOnce(stepWrite, { applied });
      return answer;
    });
    const started = await h.run(twoRemote, { tag: 'lost' });
    const job = await h.waitFor(started._id, ['complete', 'error']);
    expect(outage.failed).toHaveLength(1);
    expect({ status: job.status, error: job.error, tasks: taskStatuses(job) }).toEqual({
      status: 'complete',
      error: [],
      tasks: { workflow_start: 'complete', m1: 'complete', m2: 'complete', workflow_end: 'complete' },
    });
    expect(Object.fromEntries(runs)).toEqual({ 'lost/1': 1, 'lost/2': 1 });
    // the result of m1 that the step held is the one stored
    expect(job.tasks.m1?.variables?.outgoing).toEqual({ result: 'lost/1' });
    await h.waitUntil(started._id, (j) => (j.outbox ?? []).length === 0, 'outbox published');
    expectEachEventOnce(h, started._id);
  });
});

describe('a step whose write lands after the engine gave up on it', () => {
  it('is seen applied when the write made again is refused, and the job goes on at once', async () => {
    const outage = new StoreOutage();
    // a long lease: a job whose runner stopped would wait minutes for its engine's rescan
    const h = await startEngineHarness({ serverId: 'late', leaseMs: 60_000 }, undefined, outage);
    harnesses.push(h);
    const { runs, handler } = counter();
    // the read that asks whether the step went in
    const stepsRead = (collection: string, method: string, args: unknown[]) =>
      collection === 'jobs' && method === 'findOne' && 'steps' in ((args[1] as { projection?: object } | undefined)?.projection ?? {});
    h.services.set('mop.RunCommandTemplate', async (input) => {
      const answer = await handler(input);
      // the write of m1's step fails at once, and lands right after the engine read that it had not
      if ((input.body as { step: number }).step === 1) outage.failOnce(stepWrite, { applied: { after: stepsRead } });
      return answer;
    });
    const started = await h.run(twoRemote, { tag: 'late' });
    const job = await h.waitFor(started._id, ['complete', 'error']);
    expect(outage.spent).toBe(true);
    expect({ status: job.status, error: job.error }).toEqual({ status: 'complete', error: [] });
    expect(Object.fromEntries(runs)).toEqual({ 'late/1': 1, 'late/2': 1 });
    await h.waitUntil(started._id, (j) => (j.outbox ?? []).length === 0, 'outbox published');
    expectEachEventOnce(h, started._id);
  });
});

describe('a store that does not answer for a while', () => {
  it('holds the step of a task that ended until the store is back, then the job goes on', async () => {
    const outage = new StoreOutage();
    const h = await engine(outage);
    const { runs, handler } = counter();
    h.services.set('mop.RunCommandTemplate', async (input) => {
      const answer = await handler(input);
      if ((input.body as { step: number }).step === 1) outage.down();
      return answer;
    });
    const started = await h.run(twoRemote, { tag: 'down' });
    // the step's write failed, then the reads that ask the store whether it had it, again and again
    await eventually('three calls failed', () => outage.failed.filter((c) => c.startsWith('jobs.')).length >= 3);
    outage.up();
    const job = await h.waitFor(started._id, ['complete', 'error']);
    expect({ status: job.status, error: job.error }).toEqual({ status: 'complete', error: [] });
    expect(Object.fromEntries(runs)).toEqual({ 'down/1': 1, 'down/2': 1 });
    await h.waitUntil(started._id, (j) => (j.outbox ?? []).length === 0, 'outbox published');
    expectEachEventOnce(h, started._id);
  });

  it('keeps a running task running when the job is woken meanwhile (its reload waits for the store)', async () => {
    const outage = new StoreOutage();
    const h = await engine(outage);
    const { runs, handler } = counter();
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    h.services.set('mop.RunCommandTemplate', async (input) => {
      const answer = await handler(input);
      if ((input.body as { step: number }).step === 1) await held;
      return answer;
    });
    const started = await h.run(twoRemote, { tag: 'woken' });
    await h.waitUntil(started._id, () => runs.get('woken/1') === 1, 'm1 running');
    outage.down();
    // what a cancel, a person's answer or a worker switch on another replica does: the job is read again
    h.engine.wake(started._id);
    // the whole job read (findById: no projection), not the outbox read of the events relay
    const reads = (collection: string, method: string, args: unknown[]) =>
      collection === 'jobs' && method === 'findOne' && args[1] === undefined;
    await eventually('the reload failed twice', () => outage.failedWhere(reads) >= 2);
    release();
    outage.up();
    const job = await h.waitFor(started._id, ['complete', 'error']);
    expect({ status: job.status, error: job.error }).toEqual({ status: 'complete', error: [] });
    expect(Object.fromEntries(runs)).toEqual({ 'woken/1': 1, 'woken/2': 1 });
  });

  it('drops the held step of a job canceled meanwhile through another replica', async () => {
    const outage = new StoreOutage();
    const h = await engine(outage);
    const other = await startEngineHarness({ serverId: 'other-replica' }, sharedWith(h));
    harnesses.push(other);
    const { runs, handler } = counter();
    h.services.set('mop.RunCommandTemplate', async (input) => {
      const answer = await handler(input);
      if ((input.body as { step: number }).step === 1) outage.down();
      return answer;
    });
    const started = await h.run(twoRemote, { tag: 'canceled' });
    await eventually('the step write failed', () => outage.failed.length > 0);
    expect(await other.engine.cancelJob(started._id, 'admin')).toBe(true);
    outage.up();
    await eventually('the engine dropped the job', () => h.engine.ownedJobs === 0);
    const job = await h.waitFor(started._id, ['canceled']);
    // m1's result was never stored (the cancel ended it), and m2 never started
    expect(taskStatuses(job)).toMatchObject({ m1: 'canceled', m2: 'incomplete' });
    expect(Object.fromEntries(runs)).toEqual({ 'canceled/1': 1 });
  });

  it("drops the held step of a job another engine took over (this engine's heartbeat stopped with its store), which that engine finishes", async () => {
    const outage = new StoreOutage();
    // the engines' leases run on the test's clock: the cut-off engine is dead to the survivor when the test lets a lease pass
    const clock = new TestClock();
    const cutOff = await startEngineHarness({ serverId: 'cut-off', leaseMs: 3_000, clock }, undefined, outage);
    harnesses.push(cutOff);
    const { runs, handler } = counter();
    cutOff.services.set('mop.RunCommandTemplate', async (input) => {
      const answer = await handler(input);
      if ((input.body as { step: number }).step === 1) outage.down();
      return answer;
    });
    const started = await cutOff.run(twoRemote, { tag: 'partition' });
    await eventually('the step write failed', () => outage.failed.length > 0);
    const survivor = await startEngineHarness({ serverId: 'survivor', leaseMs: 3_000, clock }, sharedWith(cutOff));
    harnesses.push(survivor);
    survivor.services.set('mop.RunCommandTemplate', handler);
    await clock.advance(3_000);
    const done = await survivor.waitFor(started._id, ['complete', 'error']);
    expect(done).toMatchObject({ status: 'complete', error: [], metrics: { server_id: 'survivor' } });
    outage.up();
    await eventually('the cut-off engine dropped the job', () => cutOff.engine.ownedJobs === 0);
    // the cut-off engine wrote nothing after the survivor finished the job
    const stored = (await cutOff.store.collection<JobRecord>('jobs').findOne({ _id: started._id })) as JobRecord;
    expect({ steps: stored.steps, status: stored.status, server: stored.metrics?.server_id }).toEqual({
      steps: done.steps,
      status: 'complete',
      server: 'survivor',
    });
    // m1's result never reached the store from the cut-off engine: the survivor ran it again (at least once)
    expect(Object.fromEntries(runs)).toEqual({ 'partition/1': 2, 'partition/2': 1 });
  });
});

describe('a store that no engine reaches for longer than the lease (a MongoDB election)', () => {
  it('leaves every job with its engine afterwards: no engine takes the others for dead, and no task runs twice', async () => {
    const outage = new StoreOutage();
    // each engine looks at the others far more often than they beat, as a scan may come right after
    // the store is back; the leases run on the test's clock, so only the outage can stop a heartbeat
    const clock = new TestClock();
    const timing = { leaseMs: 300, renewMs: 140, scanMs: 20, clock };
    const a = await startEngineHarness({ serverId: 'elect-a', ...timing }, undefined, outage);
    harnesses.push(a);
    const b = await startEngineHarness({ serverId: 'elect-b', ...timing }, sharedWith(a), outage);
    harnesses.push(b);
    const { runs, handler } = counter();
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const service = async (input: Parameters<typeof handler>[0]) => {
      const answer = await handler(input);
      if ((input.body as { step: number }).step === 1) await held;
      return answer;
    };
    a.services.set('mop.RunCommandTemplate', service);
    b.services.set('mop.RunCommandTemplate', service);
    const onA = await a.run(twoRemote, { tag: 'a' });
    const onB = await b.engine.startJob({ workflow: twoRemote, variables: { tag: 'b' }, caller: SYSTEM_CALLER });
    await eventually('m1 running on both engines', () => runs.get('a/1') === 1 && runs.get('b/1') === 1);
    // a lease in which each engine sees the other's heartbeat move
    await clock.advance(timing.leaseMs);

    outage.down();
    // four heartbeats of each engine fail: the outage outlasts the lease (300 ms) for both
    const beats = (collection: string, method: string) => collection === 'engines' && method === 'updateOne';
    await clock.advance(2 * timing.leaseMs);
    expect(outage.failedWhere(beats)).toBeGreaterThanOrEqual(8);
    outage.up();
    // two leases after the store is back, each engine having scanned before the other's first heartbeat: nothing moved
    await clock.advance(2 * timing.leaseMs);
    expect(await Promise.all([onA, onB].map((j) => leaseOf(a, j._id)))).toEqual(['elect-a', 'elect-b']);
    release();

    const [doneA, doneB] = await Promise.all([a.waitFor(onA._id, ['complete', 'error']), b.waitFor(onB._id, ['complete', 'error'])]);
    expect([doneA, doneB].map((j) => ({ status: j.status, server: j.metrics?.server_id }))).toEqual([
      { status: 'complete', server: 'elect-a' },
      { status: 'complete', server: 'elect-b' },
    ]);
    expect(Object.fromEntries(runs)).toEqual({ 'a/1': 1, 'a/2': 1, 'b/1': 1, 'b/2': 1 });
  });

  it('still takes over the jobs of an engine that died meanwhile, once its heartbeat has not moved for a lease after the store is back', async () => {
    const outage = new StoreOutage();
    const clock = new TestClock();
    const timing = { leaseMs: 300, renewMs: 100, scanMs: 20, clock };
    const survivor = await startEngineHarness({ serverId: 'elect-survivor', ...timing }, undefined, outage);
    harnesses.push(survivor);
    const dying = await startEngineHarness({ serverId: 'elect-dying', ...timing }, sharedWith(survivor), outage);
    const { runs, handler } = counter();
    survivor.services.set('mop.RunCommandTemplate', handler);
    dying.services.set('mop.RunCommandTemplate', () => new Promise<never>(() => undefined));
    const started = await dying.engine.startJob({ workflow: twoRemote, variables: { tag: 'orphan' }, caller: SYSTEM_CALLER });
    await dying.waitUntil(started._id, (j) => j.tasks.m1?.status === 'running', 'm1 running');
    // a lease in which the survivor sees the other engine's heartbeat move, up to its last beat before the outage
    await clock.advance(timing.leaseMs + timing.scanMs);

    outage.down();
    // the engine ends while the store is down: it cannot even record that it stopped
    dying.abandon();
    const stopping = (collection: string, method: string, args: unknown[]) =>
      collection === 'engines' && method === 'updateOne' && JSON.stringify(args[1]).includes('"stopped"');
    await eventually('the dying engine failing to record that it stopped', () => outage.failedWhere(stopping) > 0);
    const beats = (collection: string, method: string) => collection === 'engines' && method === 'updateOne';
    await clock.advance(2 * timing.leaseMs);
    expect(outage.failedWhere(beats)).toBeGreaterThanOrEqual(4);
    outage.up();
    // half a lease after the store is back the dead engine still holds its job; a lease later it is taken over
    await clock.advance(timing.leaseMs / 2);
    expect(await leaseOf(survivor, started._id)).toBe('elect-dying');
    await clock.advance(timing.leaseMs);

    const job = await survivor.waitFor(started._id, ['complete', 'error']);
    expect({ status: job.status, server: job.metrics?.server_id, error: job.error }).toEqual({
      status: 'complete',
      server: 'elect-survivor',
      error: [],
    });
    expect(Object.fromEntries(runs)).toEqual({ 'orphan/1': 1, 'orphan/2': 1 });
  });
});

describe('a child job whose creation the store fails', () => {
  const child = workflowDocument(
    'outage-child',
    { c1: task('stringConcat', { str: 'child of ', stringN: '$var.job.parent' }, { combinedStrings: '$var.job.out' }) },
    [
      ['workflow_start', 'c1'],
      ['c1', 'workflow_end'],
    ],
  );
  const parent = parentOf('outage-parent', 'outage-child', { parent: { task: 'static', value: 'outage' } });

  it.each([
    ['was created (the answer was lost)', true],
    ['was not created', false],
  ])('%s: the child is created once and the parent goes on', async (_what, applied) => {
    const outage = new StoreOutage();
    const h = await engine(outage);
    h.workflows.set(child.name, child);
    // the insert of a job that has a parent: the child's
    outage.failOnce((collection, method, args) => collection === 'jobs' && method === 'insertOneId' && 'parent' in (args[0] as object), {
      applied,
    });
    const job = await h.waitFor((await h.run(parent))._id, ['complete', 'error']);
    expect(outage.spent).toBe(true);
    expect({ status: job.status, error: job.error }).toEqual({ status: 'complete', error: [] });
    expect(job.tasks.cj?.variables?.outgoing?.job_details).toMatchObject({ status: 'complete', variables: { out: 'child of outage' } });
    expect(await h.store.collection<JobRecord>('jobs').countDocuments({ 'parent.job': job._id })).toBe(1);
  });
});
