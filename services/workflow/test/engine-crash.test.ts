import { AppError, SYSTEM_CALLER } from '@nap/contracts';
import { initTracing, injectTraceHeaders } from '@nap/telemetry';
import { eventually, linearWorkflow, task, workflowDocument } from '@nap/testing';
import type { JobRecord } from '../src/domain/job-model';
import { TestClock } from './support/clock';
import type { EngineHarness, StoreFaults } from './support/harness';
import { sharedWith, startEngineHarness, stoppedAfterEach } from './support/harness';
import { CrashSwitch, LateAnswer } from './support/crash';
import { StoreOutage } from './support/outage';
import { COMPLETE_STREAM, counter, remote, streamOf, twoRemote } from './support/remote-tasks';

/**
 * An engine killed at the worst moments, simulated with a {@link CrashSwitch}: from the trip on, its
 * store calls hang, so what another engine finds in the store is what a SIGKILL would have left.
 * The engines' leases run on a {@link TestClock}: a lease passes when the test lets it pass, so a
 * loaded machine running heartbeats late can neither make a live engine look dead nor slow a takeover.
 */

const linear = linearWorkflow('crash-linear');

/** The engines' lease (the default); their heartbeats and scans come every third of it on the test's clock. */
const LEASE_MS = 3_000;
const SCAN_MS = LEASE_MS / 3;

const harnesses = stoppedAfterEach();

// the W3C propagator, as every process installs it; no exporter: no span is recorded (the usual case)
const tracing = initTracing({ serviceName: 'engine-crash-test' });
afterAll(() => tracing.shutdown());

async function first(crash: CrashSwitch, options = {}): Promise<EngineHarness> {
  const h = await startEngineHarness({ serverId: 'engine-one', ...options }, undefined, crash);
  harnesses.push(h);
  return h;
}

/** Gives an engine up as a SIGKILL would: its store calls hang and nothing of it is stopped after the test. */
function kill(h: EngineHarness): void {
  harnesses.splice(harnesses.indexOf(h), 1);
  h.abandon();
}

/** Another engine on `other`'s store and workflows (the one that finds what a dead engine left), with its own identity and timing. */
async function onSameStore(
  other: EngineHarness,
  options: Parameters<typeof startEngineHarness>[0],
  crash?: StoreFaults,
): Promise<EngineHarness> {
  const h = await startEngineHarness(options, sharedWith(other), crash);
  harnesses.push(h);
  return h;
}

/** Which engine the job is leased to, as the store has it. */
async function leaseOf(h: EngineHarness, jobId: string): Promise<string | undefined> {
  return (await h.store.collection<JobRecord>('jobs').findOne({ _id: jobId }))?.lease;
}

describe('a job whose start was answered', () => {
  // a job is stored with its first step: one of inline built-ins is stored finished, one that calls
  // a service is stored with that task running, and the engine may die before anything else

  it('runs to its end when the engine dies after storing it with its first step (restart, same identity)', async () => {
    const crash = new CrashSwitch();
    const clock = new TestClock();
    // the lease is a minute: only the engine's own identity can make it resume at once
    const h = await first(crash, { leaseMs: 60_000, renewMs: 50, clock });
    h.workflows.set(twoRemote.name, twoRemote);
    // the insert is durable and answered; nothing after it reaches the store
    crash.crashAfter((collection, method) => collection === 'jobs' && method === 'insertOneId');
    const started = await h.engine.startJob({ workflow: twoRemote, variables: { tag: 'restart' }, caller: SYSTEM_CALLER });
    expect(crash.crashed).toBe(true);
    expect(started.status).toBe('running');
    // started by no request, where no span is recorded: the job stores no trace
    expect(await h.store.collection<JobRecord>('jobs').findOne({ _id: started._id })).not.toHaveProperty('traceContext');
    kill(h);

    // the restarted process has the same engine identity: it resumes its own jobs at once (in one
    // process it first watches the dead one's heartbeat for two renewals, since the pid is the same)
    const restarted = await clock.whileWaiting(
      onSameStore(h, { serverId: 'engine-one', leaseMs: 60_000, renewMs: 50, clock }),
      'the restarted engine started',
    );
    const { runs, handler } = counter();
    restarted.services.set('mop.RunCommandTemplate', handler);
    const job = await restarted.waitFor(started._id, ['complete', 'error']);
    expect(job.error).toEqual([]);
    expect(job).toMatchObject({ status: 'complete', metrics: { server_id: 'engine-one' } });
    // m1 was stored running by the first step: it runs again (at-least-once), m2 once
    expect(Object.fromEntries(runs)).toEqual({ 'restart/1': 1, 'restart/2': 1 });
  });

  it('keeps its secrets sealed in the store and runs on with them when the engine dies mid-job (restart, same identity)', async () => {
    const password = 'crash-secret-pw-4d7e';
    // m1 is given the password and its output (which embeds it) becomes the variable m2 is given
    const secretRemote = workflowDocument(
      'crash-secret',
      {
        m1: { ...remote(1), variables: { incoming: { template: '$var.job.password', step: 1 }, outgoing: { result: '$var.job.echo' } } },
        m2: { ...remote(2), variables: { incoming: { template: '$var.job.echo', step: 2 }, outgoing: { result: null } } },
      },
      [
        ['workflow_start', 'm1'],
        ['m1', 'm2'],
        ['m2', 'workflow_end'],
      ],
    );
    const crash = new CrashSwitch();
    const clock = new TestClock();
    const h = await first(crash, { leaseMs: 60_000, renewMs: 50, clock });
    h.workflows.set(secretRemote.name, secretRemote);
    const { runs, handler } = counter();
    h.services.set('mop.RunCommandTemplate', handler);
    // the step that records m1's output is durable and answered; nothing after it reaches the store
    crash.crashAfter((collection, method) => collection === 'jobs' && method === 'findOneAndUpdate');
    const started = await h.engine.startJob({ workflow: secretRemote, variables: { password }, caller: SYSTEM_CALLER });
    await eventually('the engine dead after m1', () => crash.crashed, { timeoutMs: 10_000 });
    kill(h);
    const stored = JSON.stringify([await h.store.collection('jobs').find({}), await h.store.collection('job_values').find({})]);
    expect(stored).toContain('"m1"');
    expect(stored).not.toContain(password);

    const restarted = await clock.whileWaiting(
      onSameStore(h, { serverId: 'engine-one', leaseMs: 60_000, renewMs: 50, clock }),
      'the restarted engine started',
    );
    const after = counter();
    restarted.services.set('mop.RunCommandTemplate', after.handler);
    const job = await restarted.waitFor(started._id, ['complete', 'error']);
    expect(job.error).toEqual([]);
    expect(job.status).toBe('complete');
    expect(runs.get(`${password}/1`)).toBe(1);
    // the restarted engine read the job's sealed values back: it gave m2 m1's output in clear
    expect(Object.fromEntries(after.runs)).toEqual({ [`${password}/1/2`]: 1 });
    expect(job.variables.echo).toBe(`${password}/1`);
    expect(job.tasks.m2?.variables?.outgoing).toEqual({ result: `${password}/1/2` });
    expect(JSON.stringify(await h.store.collection('jobs').find({}))).not.toContain(password);
  });

  it("runs to its end when another replica takes it over after the dead engine's lease", async () => {
    const crash = new CrashSwitch();
    const clock = new TestClock();
    const h = await first(crash, { leaseMs: LEASE_MS, clock });
    h.workflows.set(twoRemote.name, twoRemote);
    crash.crashAfter((collection, method) => collection === 'jobs' && method === 'insertOneId');
    // the job belongs to the trace of the request that started it
    const traceContext = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', tracestate: 'nap=t1' };
    const started = await h.engine.startJob({ workflow: twoRemote, variables: { tag: 'takeover' }, caller: SYSTEM_CALLER, traceContext });
    kill(h);

    const survivor = await onSameStore(h, { serverId: 'engine-two', leaseMs: LEASE_MS, clock });
    // the survivor makes each task call in that trace: as a child of the span that started the job
    const traces: Record<string, string>[] = [];
    const { handler } = counter();
    survivor.services.set('mop.RunCommandTemplate', (input, _caller, ctx) => {
      const headers: Record<string, string> = {};
      if (ctx !== undefined) injectTraceHeaders(headers, ctx);
      traces.push(headers);
      return handler(input);
    });
    // the survivor's first scan saw a heartbeat it had not seen before: the job stays with its engine for a lease
    expect(await leaseOf(survivor, started._id)).toBe('engine-one');
    await clock.advance(LEASE_MS);
    const job = await survivor.waitFor(started._id, ['complete', 'error']);
    expect(job.error).toEqual([]);
    expect(job).toMatchObject({ status: 'complete', metrics: { server_id: 'engine-two' } });
    expect(traces).toEqual([traceContext, traceContext]);
  });

  it("is stored finished when its tasks are inline built-ins, and its events leave the dead engine's outbox through the successor", async () => {
    const crash = new CrashSwitch();
    const clock = new TestClock();
    const h = await first(crash, { leaseMs: LEASE_MS, clock });
    h.workflows.set(linear.name, linear);
    crash.crashAfter((collection, method) => collection === 'jobs' && method === 'insertOneId');
    const started = await h.engine.startJob({ workflow: linear, variables: {}, caller: SYSTEM_CALLER });
    expect(crash.crashed).toBe(true);
    kill(h);
    // one insert, nothing after it: the job as stored is finished, its events all in its outbox
    const stored = (await h.store.collection<JobRecord>('jobs').findOne({ _id: started._id })) as JobRecord;
    expect(stored).toMatchObject({ status: 'complete', variables: { a: 1, b: 2 }, lease: 'engine-one' });
    expect(stored.outbox?.map((e) => e.event)).toEqual(['jobStart', 'taskStart', 'taskFinish', 'taskStart', 'taskFinish', 'jobComplete']);

    const survivor = await onSameStore(h, { serverId: 'engine-two', leaseMs: LEASE_MS, clock });
    await clock.advance(LEASE_MS);
    await survivor.waitUntil(
      started._id,
      (j) => j.lease === undefined && (j.outbox ?? []).length === 0,
      'outbox published and lease ended',
    );
    const names = streamOf(survivor.events, started._id);
    expect(names).toEqual({
      names: ['jobStart', 'taskStart:a1', 'taskFinish:a1', 'taskStart:b2', 'taskFinish:b2', 'jobComplete'],
      seqs: [1, 2, 3, 4, 5, 6],
      duplicates: 0,
    });
  });
});

describe("a childJob task's count of its job tree", () => {
  // the count (the root's treeJobs, which bounds a tree's size) is raised before any child exists
  const loop = workflowDocument(
    'crash-loop',
    {
      cj: task(
        'childJob',
        {
          task: '',
          workflow: linear.name,
          variables: {},
          data_array: [{ n: 1 }, { n: 2 }, { n: 3 }],
          transformation: '',
          loopType: 'parallel',
        },
        { job_details: null },
        { type: 'operation' },
      ),
    },
    [
      ['workflow_start', 'cj'],
      ['cj', 'workflow_end'],
    ],
  );

  async function finishedBySurvivor(h: EngineHarness, clock: TestClock, jobId: string): Promise<JobRecord> {
    kill(h);
    const survivor = await onSameStore(h, { serverId: 'engine-two', leaseMs: LEASE_MS, clock });
    await clock.advance(LEASE_MS);
    const job = await survivor.waitFor(jobId, ['complete', 'error']);
    expect(job.error).toEqual([]);
    expect(job.status).toBe('complete');
    expect(await survivor.store.collection('jobs').countDocuments({ 'parent.job': jobId })).toBe(3);
    return (await survivor.store.collection<JobRecord>('jobs').findOne({ _id: jobId })) as JobRecord;
  }

  it('is not raised again when the engine dies after creating a child', async () => {
    const crash = new CrashSwitch();
    const clock = new TestClock();
    const h = await first(crash, { leaseMs: LEASE_MS, clock });
    h.workflows.set(linear.name, linear);
    h.workflows.set(loop.name, loop);
    // the parent's insert, then its first child's
    let inserts = 0;
    crash.crashAfter((collection, method) => collection === 'jobs' && method === 'insertOneId' && ++inserts === 2);
    const started = await h.engine.startJob({ workflow: loop, variables: {}, caller: SYSTEM_CALLER });
    await eventually('the engine died', () => (crash.crashed ? true : undefined));
    expect(await h.store.collection('jobs').countDocuments({ 'parent.job': started._id })).toBe(1);
    expect((await finishedBySurvivor(h, clock, started._id)).treeJobs).toBe(3);
  });

  it('is never lost: an engine that dies between raising it and recording it on the task counts the children twice', async () => {
    const crash = new CrashSwitch();
    const clock = new TestClock();
    const h = await first(crash, { leaseMs: LEASE_MS, clock });
    h.workflows.set(linear.name, linear);
    h.workflows.set(loop.name, loop);
    // the increment is made and answered; nothing after it reaches the store
    let counted = false;
    crash.crashBefore((collection, method, args) => {
      if (counted) return true;
      counted = collection === 'jobs' && method === 'updateOne' && JSON.stringify(args[1]).includes('"$inc":{"treeJobs"');
      return false;
    });
    const started = await h.engine.startJob({ workflow: loop, variables: {}, caller: SYSTEM_CALLER });
    await eventually('the engine died', () => (crash.crashed ? true : undefined));
    const stored = (await h.store.collection<JobRecord>('jobs').findOne({ _id: started._id })) as JobRecord;
    expect(stored.treeJobs).toBe(3);
    expect(stored.tasks.cj?.childRun?.counted).toBeUndefined();
    // the bound gets stricter by the task's children, never looser
    expect((await finishedBySurvivor(h, clock, started._id)).treeJobs).toBe(6);
  });
});

describe('a task whose service is not up yet', () => {
  it('is called again until the service answers (the request reached no service, so nothing ran twice)', async () => {
    const h = await startEngineHarness({ serverId: 'patient', unavailableRetryMs: 10_000 });
    harnesses.push(h);
    const { runs, handler } = counter();
    let refusals = 0;
    // what the bus answers while no instance of the service listens (a restart, the platform starting)
    h.services.set('mop.RunCommandTemplate', async (input) => {
      if (refusals < 3) {
        refusals += 1;
        throw new AppError('SERVICE_UNAVAILABLE', 'No service listens on "nap.rpc.mop.RunCommandTemplate" (no responders)');
      }
      return handler(input);
    });
    const job = await h.waitFor((await h.run(twoRemote, { tag: 'patient' }))._id, ['complete', 'error']);
    expect(job.status).toBe('complete');
    expect(refusals).toBe(3);
    expect(Object.fromEntries(runs)).toEqual({ 'patient/1': 1, 'patient/2': 1 });
  });

  it('fails once the service has not answered for the configured time', async () => {
    const h = await startEngineHarness({ serverId: 'impatient', unavailableRetryMs: 300 });
    harnesses.push(h);
    h.services.set('mop.RunCommandTemplate', async () => {
      throw new AppError('SERVICE_UNAVAILABLE', 'No service listens on "nap.rpc.mop.RunCommandTemplate" (no responders)');
    });
    const job = await h.waitFor((await h.run(twoRemote, { tag: 'never' }))._id, ['complete', 'error']);
    expect(job.status).toBe('error');
    expect(job.tasks.m1?.variables?.error).toMatch(/^SERVICE_UNAVAILABLE: No service listens/);
  });
});

describe('leases', () => {
  it('a live engine keeps its jobs: another engine scanning all along never takes them, and no task runs twice', async () => {
    const clock = new TestClock();
    const a = await startEngineHarness({ serverId: 'live-a', leaseMs: LEASE_MS, clock });
    harnesses.push(a);
    const b = await onSameStore(a, { serverId: 'live-b', leaseMs: LEASE_MS, clock });
    // each task takes several leases: only renewals keep the job with its engine
    const { runs, handler } = counter();
    const ends = [1, 2].map(() => {
      let end: () => void = () => undefined;
      return { ended: new Promise<void>((resolve) => (end = resolve)), end: () => end() };
    });
    const service = async (input: { body?: unknown }) => {
      const answer = await handler(input);
      await ends[(input.body as { step: number }).step - 1]?.ended;
      return answer;
    };
    a.services.set('mop.RunCommandTemplate', service);
    b.services.set('mop.RunCommandTemplate', service);
    const started = await Promise.all(
      [0, 1, 2].map((i) => a.engine.startJob({ workflow: twoRemote, variables: { tag: `live-${i}` }, caller: SYSTEM_CALLER })),
    );
    for (const [step, { end }] of ends.entries()) {
      const task = `m${step + 1}`;
      for (const job of started) await a.waitUntil(job._id, (j) => j.tasks[task]?.status === 'running', `${task} in flight`);
      // four leases pass while every task is in flight: a renews its heartbeat, b scans, each every third of a lease
      await clock.advance(4 * LEASE_MS);
      for (const job of started) expect(await leaseOf(b, job._id)).toBe('live-a');
      end();
    }
    const done = await Promise.all(started.map((j) => a.waitFor(j._id, ['complete', 'error'])));
    expect(done.map((j) => [j.status, j.metrics?.server_id])).toEqual([0, 1, 2].map(() => ['complete', 'live-a']));
    expect([...runs.values()]).toEqual([1, 1, 1, 1, 1, 1]);
  });

  it("a surviving engine takes a dead engine's job over after its lease and runs the task in flight again (at-least-once)", async () => {
    const crash = new CrashSwitch();
    const clock = new TestClock();
    const a = await first(crash, { serverId: 'dying-a', leaseMs: LEASE_MS, clock });
    const { runs, handler } = counter();
    let release: () => void = () => undefined;
    // engine a's execution of m1 never answers: the engine dies while it is in flight
    a.services.set('mop.RunCommandTemplate', async (input) => {
      await handler(input);
      await new Promise<void>((resolve) => (release = resolve));
      return { result: 'too late' };
    });
    a.workflows.set(twoRemote.name, twoRemote);
    const started = await a.engine.startJob({ workflow: twoRemote, variables: { tag: 'dying' }, caller: SYSTEM_CALLER });
    await a.waitUntil(started._id, (j) => j.tasks.m1?.status === 'running' && runs.get('dying/1') === 1, 'm1 in flight');
    crash.crashNow();
    kill(a);

    const b = await onSameStore(a, { serverId: 'survivor-b', leaseMs: LEASE_MS, clock });
    b.services.set('mop.RunCommandTemplate', handler);
    expect(await leaseOf(b, started._id)).toBe('dying-a');
    await clock.advance(LEASE_MS);
    const job = await b.waitFor(started._id, ['complete', 'error']);
    release();
    expect(job).toMatchObject({ status: 'complete', metrics: { server_id: 'survivor-b' } });
    // m1 was in flight at the crash: it ran again; m2 ran once
    expect(Object.fromEntries(runs)).toEqual({ 'dying/1': 2, 'dying/2': 1 });
  });

  it("takes a dead engine's jobs one at a time: a takeover cut short by a store error drives what it moved, and a later scan takes the rest", async () => {
    const crash = new CrashSwitch();
    const clock = new TestClock();
    const a = await first(crash, { serverId: 'cut-a', leaseMs: LEASE_MS, clock });
    const { runs, handler } = counter();
    a.services.set('mop.RunCommandTemplate', async (input) => {
      await handler(input);
      return new Promise<never>(() => undefined);
    });
    a.workflows.set(twoRemote.name, twoRemote);
    const jobs = await Promise.all(
      ['c1', 'c2', 'c3'].map((tag) => a.engine.startJob({ workflow: twoRemote, variables: { tag }, caller: SYSTEM_CALLER })),
    );
    for (const [i, job] of jobs.entries())
      await a.waitUntil(job._id, (j) => j.tasks.m1?.status === 'running' && runs.get(`c${i + 1}/1`) === 1, 'm1 in flight');
    crash.crashNow();
    kill(a);

    // engine b's store answers its second lease move with a failover: the first job moved, the others did not
    const cut = new StoreOutage();
    let moves = 0;
    cut.failOnce(
      (collection, method, args) =>
        collection === 'jobs' && method === 'findOneAndUpdate' && (args[0] as { lease?: string }).lease === 'cut-a' && ++moves === 2,
      { applied: false, code: 'STORE_INTERRUPTED' },
    );
    const b = await onSameStore(a, { serverId: 'cut-b', leaseMs: LEASE_MS, clock }, cut);
    b.services.set('mop.RunCommandTemplate', handler);
    // a lease on, b's scan finds a dead: it moves the first job, and the failover ends that scan
    await clock.advance(LEASE_MS);
    expect(cut.spent).toBe(true);
    expect(await Promise.all(jobs.map((job) => leaseOf(b, job._id)))).toEqual(['cut-b', 'cut-a', 'cut-a']);
    await b.waitUntil(jobs[0]?._id as string, (j) => j.tasks.m1?.status === 'complete', 'the job it moved driven on');
    // a failed scan forgets the heartbeats it saw (the store failing says nothing of the others): the
    // next scan sees a's heartbeat anew, and it is dead again a lease after that
    await clock.advance(SCAN_MS + LEASE_MS);
    const done = await Promise.all(jobs.map((job) => b.waitFor(job._id, ['complete', 'error'])));
    expect(cut.spent).toBe(true);
    for (const job of done) expect(job).toMatchObject({ status: 'complete', metrics: { server_id: 'cut-b' }, error: [] });
    expect(await b.store.collection('jobs').countDocuments({ lease: 'cut-a' })).toBe(0);
    // each m1 was in flight at the crash and ran again once; each m2 ran once
    expect(Object.fromEntries(runs)).toEqual({ 'c1/1': 2, 'c1/2': 1, 'c2/1': 2, 'c2/2': 1, 'c3/1': 2, 'c3/2': 1 });
  });

  it('refuses to start under the id of an engine that is alive', async () => {
    const clock = new TestClock();
    const a = await startEngineHarness({ serverId: 'twin', leaseMs: 300, renewMs: 30, clock });
    harnesses.push(a);
    // the second engine watches the heartbeat for two renewals and a little more of the clock: a renews meanwhile
    const twin = startEngineHarness({ serverId: 'twin', leaseMs: 300, renewMs: 30, clock }, sharedWith(a));
    await expect(clock.whileWaiting(twin, 'the second engine gave up')).rejects.toThrow(/engine id "twin" is in use by a running process/);
  });
});

describe('job events (outbox)', () => {
  it('are written with the job while the bus is down and published in order, each once, when it is back', async () => {
    const h = await startEngineHarness({ serverId: 'outbox-a' });
    harnesses.push(h);
    const { handler } = counter();
    h.services.set('mop.RunCommandTemplate', handler);
    h.setBusDown(true);
    const started = await Promise.all([0, 1, 2].map((i) => h.run(twoRemote, { tag: `down-${i}` })));
    const ended = await Promise.all(started.map((j) => h.waitFor(j._id, ['complete'])));
    // nothing reached the bus; everything waits in the jobs' outboxes, which still hold their lease
    expect(h.events).toEqual([]);
    for (const job of ended) {
      expect(job.outbox?.map((e) => e.event)).toEqual(['jobStart', 'taskStart', 'taskFinish', 'taskStart', 'taskFinish', 'jobComplete']);
      expect(job.lease).toBe('outbox-a');
    }
    h.setBusDown(false);
    await h.engine.flushEvents(10_000);
    for (const job of started) {
      const stream = streamOf(h.events, job._id);
      expect(stream).toEqual({ names: COMPLETE_STREAM, seqs: [1, 2, 3, 4, 5, 6], duplicates: 0 });
      const stored = (await h.store.collection<JobRecord>('jobs').findOne({ _id: job._id })) as JobRecord;
      expect(stored).toMatchObject({ outbox: [], eventsPublished: 6 });
      expect(stored.lease).toBeUndefined();
    }
  });

  it.each([
    ['from the outbox the earlier writes handed over', false],
    ['from the store (the job was woken meanwhile)', true],
  ])(
    'are published once when the store has the last step before its writer has the answer: the relay publishes %s',
    async (_from, woken) => {
      // the write that ends the job is in the store, but its runner has not heard back (the flush a
      // write's answer waits for is slow under load): the relay publishes and removes the events it
      // knows of first; the outbox the runner then hands over, as its write left it, is stale
      const late = new LateAnswer(
        (collection, method, args) =>
          collection === 'jobs' && method === 'findOneAndUpdate' && JSON.stringify(args[1]).includes('"jobComplete"'),
      );
      const h = await startEngineHarness({ serverId: 'outbox-late' }, undefined, late);
      harnesses.push(h);
      try {
        h.services.set('mop.RunCommandTemplate', counter().handler);
        h.setBusDown(true);
        const started = await h.run(twoRemote, { tag: 'late-answer' });
        await h.waitFor(started._id, ['complete']);
        await eventually('the answer of the last write held', () => late.holding, { timeoutMs: 5_000 });
        // a wake hands nothing over: the relay reads the store, which has the whole outbox
        if (woken) h.engine.wake(started._id);
        h.setBusDown(false);
        await h.engine.flushEvents(10_000);
        const before = streamOf(h.events, started._id);
        expect(before.duplicates).toBe(0);
        expect(before.names).toEqual(COMPLETE_STREAM.slice(0, before.names.length));
        if (woken) expect(before.names).toEqual(COMPLETE_STREAM);
        late.release();
        await eventually('the runner heard back and stopped', () => !h.engine.owns(started._id), { timeoutMs: 5_000 });
        await h.engine.flushEvents(10_000);
        expect(streamOf(h.events, started._id)).toEqual({ names: COMPLETE_STREAM, seqs: [1, 2, 3, 4, 5, 6], duplicates: 0 });
        const stored = (await h.store.collection<JobRecord>('jobs').findOne({ _id: started._id })) as JobRecord;
        expect(stored).toMatchObject({ outbox: [], eventsPublished: 6 });
        expect(stored.lease).toBeUndefined();
      } finally {
        late.release();
      }
    },
  );

  it('left in the outbox by an engine that died are published by its successor, in order', async () => {
    const crash = new CrashSwitch();
    const clock = new TestClock();
    const a = await first(crash, { serverId: 'outbox-dies', leaseMs: 60_000, renewMs: 50, clock });
    const { handler } = counter();
    a.services.set('mop.RunCommandTemplate', handler);
    a.setBusDown(true);
    const started = await a.run(twoRemote, { tag: 'left-behind' });
    await a.waitFor(started._id, ['complete']);
    crash.crashNow();
    kill(a);

    const b = await clock.whileWaiting(
      onSameStore(a, { serverId: 'outbox-dies', leaseMs: 60_000, renewMs: 50, clock }),
      'the restarted engine started',
    );
    await b.engine.flushEvents(10_000);
    expect(streamOf(b.events, started._id)).toEqual({ names: COMPLETE_STREAM, seqs: [1, 2, 3, 4, 5, 6], duplicates: 0 });
  });

  it('published but not acknowledged when the engine died are published again with the same seq (at-least-once)', async () => {
    const crash = new CrashSwitch();
    const clock = new TestClock();
    const a = await first(crash, { serverId: 'ack-dies', leaseMs: 60_000, renewMs: 50, clock });
    const { handler } = counter();
    let release: () => void = () => undefined;
    // on a, m1 is still in flight when the published events are due to leave the outbox
    a.services.set('mop.RunCommandTemplate', async (input) => {
      await handler(input);
      await new Promise<void>((resolve) => (release = resolve));
      return { result: 'too late' };
    });
    a.workflows.set(twoRemote.name, twoRemote);
    // dies instead of removing the published events from the outbox
    crash.crashBefore(
      (collection, method, args) =>
        collection === 'jobs' && method === 'updateOne' && JSON.stringify(args[1]).includes('"eventsPublished"'),
    );
    const started = await a.engine.startJob({ workflow: twoRemote, variables: { tag: 'unacked' }, caller: SYSTEM_CALLER });
    await a.engine.flushEvents(1_000);
    expect(crash.crashed).toBe(true);
    const before = streamOf(a.events, started._id);
    expect(before.names).toEqual(['jobStart', 'taskStart:m1']);
    kill(a);

    const b = await clock.whileWaiting(
      onSameStore(a, { serverId: 'ack-dies', leaseMs: 60_000, renewMs: 50, clock }),
      'the restarted engine started',
    );
    b.services.set('mop.RunCommandTemplate', handler);
    await b.waitFor(started._id, ['complete']);
    release();
    await b.engine.flushEvents(10_000);
    const all = [...a.events, ...b.events];
    const stream = streamOf(all, started._id);
    // m1 was in flight when a died: it started again on b, and the stream says so
    expect(stream.names).toEqual([
      'jobStart',
      'taskStart:m1',
      'taskStart:m1',
      'taskFinish:m1',
      'taskStart:m2',
      'taskFinish:m2',
      'jobComplete',
    ]);
    expect(stream.seqs).toEqual([1, 2, 3, 4, 5, 6, 7]);
    // what a published before it died came again, under the same seq
    expect(stream.duplicates).toBe(before.seqs.length);
  });
});
