import { SYSTEM_CALLER } from '@nap/contracts';
import { eventually, linearWorkflow, workflowDocument } from '@nap/testing';
import { WAITING_LEASE } from '../src/domain/job-model';
import type { JobRecord } from '../src/domain/job-model';
import type { EngineRecord } from '../src/store/engine-registry';
import type { EngineHarness } from './support/harness';
import { sharedWith, startEngineHarness, stoppedAfterEach } from './support/harness';
import { CrashSwitch } from './support/crash';

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

/**
 * Resolves once the engine's heartbeat has moved `beats` more times. Its scans for jobs to claim
 * run on the same period as its heartbeat (a third of the lease), so as many scans have come and
 * gone: what a scan could have claimed, it would have.
 */
async function heartbeats(h: EngineHarness, beats: number): Promise<void> {
  const engines = h.store.collection<EngineRecord>('engines');
  const beatOf = async (): Promise<number> => (await engines.findOne({ _id: h.engine.serverId }))?.beat ?? 0;
  const from = await beatOf();
  await eventually(`${beats} heartbeats of ${h.engine.serverId}`, async () => (await beatOf()) >= from + beats);
}

async function stored(h: EngineHarness, jobId: string): Promise<JobRecord> {
  const job = await h.store.collection<JobRecord>('jobs').findOne({ _id: jobId });
  if (job === null) throw new Error(`job ${jobId} is not stored`);
  return job;
}

describe('the job worker switch', () => {
  it('stores a job started while it is off leased to no engine; another engine that claims jobs again runs it', async () => {
    const one = await startEngineHarness({ serverId: 'engine-one', leaseMs: 200 });
    harnesses.push(one);
    const two = await startEngineHarness({ serverId: 'engine-two', leaseMs: 200 }, sharedWith(one));
    harnesses.push(two);
    one.engine.setWorkers(OFF);
    two.engine.setWorkers(OFF);
    one.workflows.set(linear.name, linear);

    const started = await one.engine.startJob({ workflow: linear, variables: {}, caller: SYSTEM_CALLER });
    expect(started.status).toBe('running');
    // several leases and scans pass: nobody drives it
    await Promise.all([heartbeats(one, 10), heartbeats(two, 10)]);
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
    // its events out, the job's lease ends as any other job's
    await two.waitUntil(started._id, (j) => j.lease === undefined && (j.outbox ?? []).length === 0, 'its lease released');
  });

  it("takes no dead engine's job over while it is off, and does once it is on again", async () => {
    const crash = new CrashSwitch();
    const dead = await startEngineHarness({ serverId: 'engine-dead', leaseMs: 200 }, undefined, crash);
    dead.workflows.set(remote.name, remote);
    crash.crashAfter((collection, method) => collection === 'jobs' && method === 'insertOneId');
    const started = await dead.engine.startJob({ workflow: remote, variables: {}, caller: SYSTEM_CALLER });
    dead.abandon();

    const survivor = await startEngineHarness({ serverId: 'engine-survivor', leaseMs: 200 }, sharedWith(dead));
    harnesses.push(survivor);
    survivor.services.set('mop.RunCommandTemplate', async () => ({ result: 'done' }));
    survivor.engine.setWorkers(OFF);
    // a heartbeat is dead once it has not moved for a lease as the survivor measures it: its start scan took nothing
    expect(await stored(survivor, started._id)).toMatchObject({ status: 'running', lease: 'engine-dead' });
    await heartbeats(survivor, 12);
    expect(await stored(survivor, started._id)).toMatchObject({ status: 'running', lease: 'engine-dead' });
    survivor.engine.setWorkers(ON);
    const done = await survivor.waitFor(started._id, ['complete', 'error']);
    expect(done).toMatchObject({ status: 'complete', metrics: { server_id: 'engine-survivor' } });
  });
});
