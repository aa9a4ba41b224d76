import { SYSTEM_CALLER } from '@nap/contracts';
import { eventually, linearWorkflow, workflowDocument } from '@nap/testing';
import { WAITING_LEASE } from '../src/domain/job-model';
import type { JobRecord } from '../src/domain/job-model';
import type { EngineRecord } from '../src/store/engine-registry';
import { TestClock } from './support/clock';
import type { EngineHarness } from './support/harness';
import { sharedWith, startEngineHarness, stoppedAfterEach } from './support/harness';
import { CrashSwitch, HeldCall } from './support/crash';

/**
 * The job worker switch (`/workflow_engine/jobWorker/deactivate|activate`) with the engine's
 * heartbeat leases: a job started while it is off is stored leased to no engine and waits; no
 * engine takes over a dead engine's jobs meanwhile; the first engine that claims jobs again takes
 * them and runs them to their end.
 */

const linear = linearWorkflow('workers-linear');
/** A job that calls a service: stored with its first task running, which an engine that dies leaves so. */
const remote = workflowDocument(
  'workers-remote',
  {
    m1: {
      name: 'RunCommandTemplate',
      app: 'MOP',
      type: 'automatic',
      variables: { incoming: { template: 'x' }, outgoing: { result: null } },
    },
  },
  [
    ['workflow_start', 'm1'],
    ['m1', 'workflow_end'],
  ],
);

const harnesses = stoppedAfterEach();

const OFF = { jobWorker: false, taskWorker: true };
const ON = { jobWorker: true, taskWorker: true };

/** The engines' lease (the default) on the test's clock; heartbeats and scans come every third of it. */
const LEASE_MS = 3_000;
const RENEW_MS = LEASE_MS / 3;

/**
 * Lets `beats` heartbeat periods pass on the engines' clock, and checks that the heartbeat of each
 * engine moved as many times. Their scans for jobs to claim run on the same period, so as many
 * scans have come and gone: what a scan could have claimed, it would have.
 */
async function heartbeats(clock: TestClock, hs: EngineHarness[], beats: number): Promise<void> {
  const beatOf = async (h: EngineHarness): Promise<number> =>
    (await h.store.collection<EngineRecord>('engines').findOne({ _id: h.engine.serverId }))?.beat ?? 0;
  const from = await Promise.all(hs.map(beatOf));
  await clock.advance(beats * RENEW_MS);
  const to = await Promise.all(hs.map(beatOf));
  expect(to.map((beat, i) => beat - (from[i] as number))).toEqual(hs.map(() => beats));
}

async function stored(h: EngineHarness, jobId: string): Promise<JobRecord> {
  const job = await h.store.collection<JobRecord>('jobs').findOne({ _id: jobId });
  if (job === null) throw new Error(`job ${jobId} is not stored`);
  return job;
}

describe('the job worker switch', () => {
  it('stores a job started while it is off leased to no engine; another engine that claims jobs again runs it', async () => {
    const clock = new TestClock();
    const one = await startEngineHarness({ serverId: 'engine-one', leaseMs: LEASE_MS, clock });
    harnesses.push(one);
    const two = await startEngineHarness({ serverId: 'engine-two', leaseMs: LEASE_MS, clock }, sharedWith(one));
    harnesses.push(two);
    one.engine.setWorkers(OFF);
    two.engine.setWorkers(OFF);
    one.workflows.set(linear.name, linear);

    const started = await one.engine.startJob({ workflow: linear, variables: {}, caller: SYSTEM_CALLER });
    expect(started.status).toBe('running');
    // several leases and scans pass: nobody drives it
    await heartbeats(clock, [one, two], 10);
    const waiting = await stored(one, started._id);
    expect(waiting).toMatchObject({ status: 'running', lease: WAITING_LEASE });
    expect(waiting.tasks.a1?.status).toBe('incomplete');
    expect(one.engine.owns(started._id) || two.engine.owns(started._id)).toBe(false);
    // the jobStart event left the outbox all the same
    expect(one.events.map((e) => e.subject)).toContain(`nap.evt.workflow.job.${started._id}.jobStart`);

    two.engine.setWorkers(ON);
    const done = await two.waitFor(started._id, ['complete', 'error']);
    expect(done.error).toEqual([]);
    expect(done).toMatchObject({ status: 'complete', variables: { a: 1, b: 2 }, metrics: { server_id: 'engine-two' } });
    // its events out, the job's lease ends as any other job's, with the clock standing still: no scan ends it
    await two.waitUntil(started._id, (j) => j.lease === undefined && (j.outbox ?? []).length === 0, 'its lease released');
  });

  it("ends a finished job's lease at once when the other engine's relay counted its first event as published first", async () => {
    const clock = new TestClock();
    const filterOf = (args: unknown[]) => (args[0] ?? {}) as Record<string, unknown>;
    const updateOf = (args: unknown[]) => (args[1] ?? {}) as { $unset?: Record<string, unknown> };
    const isRemoval = (collection: string, method: string, args: unknown[]) =>
      collection === 'jobs' && method === 'updateOne' && 'eventsPublished' in filterOf(args);
    // engine one's removal of the jobStart event it published, and engine two's removal of the
    // finished job's events with its lease, each held until the test lets it go
    const oneRemoves = new HeldCall((c, m, args) => isRemoval(c, m, args) && updateOf(args).$unset === undefined);
    const twoRemovesLast = new HeldCall((c, m, args) => isRemoval(c, m, args) && updateOf(args).$unset?.lease !== undefined);
    const one = await startEngineHarness({ serverId: 'engine-one', leaseMs: LEASE_MS, clock }, undefined, oneRemoves);
    harnesses.push(one);
    const two = await startEngineHarness({ serverId: 'engine-two', leaseMs: LEASE_MS, clock }, sharedWith(one), twoRemovesLast);
    harnesses.push(two);
    one.engine.setWorkers(OFF);
    two.engine.setWorkers(OFF);
    one.workflows.set(linear.name, linear);
    const started = await one.engine.startJob({ workflow: linear, variables: {}, caller: SYSTEM_CALLER });
    // engine one publishes the jobStart event and is about to remove it from the outbox
    await eventually("engine one's removal of the jobStart event under way", () => oneRemoves.holding);
    expect(one.events.map((e) => e.subject)).toEqual([`nap.evt.workflow.job.${started._id}.jobStart`]);

    // engine two runs the job to its end and publishes every event of it (jobStart too: it read none removed)
    two.engine.setWorkers(ON);
    await two.waitFor(started._id, ['complete']);
    await eventually("engine two's last removal under way", () => twoRemovesLast.holding);
    const published = two.events.filter((e) => e.subject.startsWith(`nap.evt.workflow.job.${started._id}.`));
    expect(published.map((e) => e.payload.seq)).toEqual(published.map((_, i) => i + 1));

    // engine one's removal lands first: engine two's, made for the outbox as it was, is refused
    oneRemoves.release();
    await two.waitUntil(started._id, (j) => j.eventsPublished === 1, 'jobStart counted as published');
    expect(await stored(two, started._id)).toMatchObject({ lease: 'engine-two', outbox: published.slice(1).map(() => expect.anything()) });
    twoRemovesLast.release();

    // engine two reads the outbox again and ends the lease, with the clock standing still (no scan),
    // publishing nothing a second time
    const released = await two.waitUntil(started._id, (j) => j.lease === undefined, 'its lease released');
    expect({ outbox: released.outbox ?? [], eventsPublished: released.eventsPublished }).toEqual({
      outbox: [],
      eventsPublished: published.length,
    });
    await two.engine.flushEvents();
    expect(two.events.filter((e) => e.subject.startsWith(`nap.evt.workflow.job.${started._id}.`))).toHaveLength(published.length);
  });

  it("takes no dead engine's job over while it is off, and does once it is on again", async () => {
    const crash = new CrashSwitch();
    const clock = new TestClock();
    const dead = await startEngineHarness({ serverId: 'engine-dead', leaseMs: LEASE_MS, clock }, undefined, crash);
    dead.workflows.set(remote.name, remote);
    crash.crashAfter((collection, method) => collection === 'jobs' && method === 'insertOneId');
    const started = await dead.engine.startJob({ workflow: remote, variables: {}, caller: SYSTEM_CALLER });
    dead.abandon();

    const survivor = await startEngineHarness({ serverId: 'engine-survivor', leaseMs: LEASE_MS, clock }, sharedWith(dead));
    harnesses.push(survivor);
    survivor.services.set('mop.RunCommandTemplate', async () => ({ result: 'done' }));
    survivor.engine.setWorkers(OFF);
    // a heartbeat is dead once it has not moved for a lease as the survivor measures it: its start scan took nothing
    expect(await stored(survivor, started._id)).toMatchObject({ status: 'running', lease: 'engine-dead' });
    await heartbeats(clock, [survivor], 12);
    expect(await stored(survivor, started._id)).toMatchObject({ status: 'running', lease: 'engine-dead' });
    survivor.engine.setWorkers(ON);
    const done = await survivor.waitFor(started._id, ['complete', 'error']);
    expect(done).toMatchObject({ status: 'complete', metrics: { server_id: 'engine-survivor' } });
  });
});
