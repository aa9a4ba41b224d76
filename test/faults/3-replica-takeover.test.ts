/**
 * Scenario 3: distributed, two workflow engine replicas; one is killed with SIGKILL in the middle of
 * 50 jobs. The survivor takes the dead replica's jobs over once its heartbeat has stood still for a
 * lease (3 s by default) and finishes them all; no task runs twice (a task in flight at the kill may
 * run again, see support/jobs.ts). The takeover time is printed.
 */
import { DevicePeer } from './support/device-peer';
import { figure, quantile } from './support/figures';
import { createCountingWorkflow, judgeJobs, snapshotOf, startJobs, waitForJobsToEnd } from './support/jobs';
import { Distributed, dataDirectory, engineIdOf, progress } from './support/platform';

const SCENARIO = '3 distributed replica kill -9, 50 jobs';
const JOBS = 50;
const HOLD_MS = 800;
/** A request the dead replica sent through gateway-devices just before the kill may reach the device a little later. */
const IN_FLIGHT_GRACE_MS = 1_000;

const data = dataDirectory('takeover');
let platform: Distributed;
let peer: DevicePeer;

afterAll(async () => {
  await platform?.stop();
  await peer?.stop();
  data.remove();
});

it('the surviving replica finishes every job of the dead one, each task once (or twice if in flight at the kill)', async () => {
  peer = await DevicePeer.start(HOLD_MS);
  platform = await Distributed.start(data.dir, { workflowReplicas: 2 });
  const { client } = platform;
  const [victim, survivor] = platform.workflows;
  if (victim === undefined || survivor === undefined) throw new Error('two workflow replicas were not started');
  const victimId = engineIdOf(victim);
  const survivorId = engineIdOf(survivor);
  await createCountingWorkflow(client, peer, 'fault-takeover');

  const starts = await startJobs(client, 'fault-takeover', JOBS, 10, () => undefined);
  const ids = starts.filter((s) => s.jobId !== undefined).map((s) => s.jobId as string);
  const killedAt = Date.now();
  await victim.kill();
  // the jobs as the dead replica left them (the survivor reads the same store; it takes nothing over before a lease)
  const page = await client.ok<{ items: { _id: string }[] }>(
    'GET',
    `/operations-manager/jobs?equals[name]=fault-takeover&limit=${JOBS * 2}`,
  );
  const snapshot = snapshotOf(page.items);
  const victims = [...snapshot]
    .filter(([, j]) => j.owner === victimId && (j.status === 'running' || j.status === 'paused'))
    .map(([id]) => id);
  progress(`scenario 3: killed ${victim.name} holding ${victims.length} running jobs of ${ids.length}`);

  const { notComplete } = await waitForJobsToEnd(client, ids, 180_000);
  const report = judgeJobs(peer, ids, killedAt + IN_FLIGHT_GRACE_MS, snapshot, (id) => snapshot.get(id)?.owner === victimId);
  const resumed = survivor
    .loggedTimes('Resuming job')
    .filter((t) => t >= killedAt)
    .map((t) => t - killedAt);
  const serverErrors = starts.filter((s) => s.status >= 500 || s.status === 0);
  const finalOwners = await client.ok<{ items: { _id: string; metrics?: { server_id?: string } }[] }>(
    'GET',
    `/operations-manager/jobs?equals[name]=fault-takeover&limit=${JOBS * 2}&include=metrics`,
  );
  const takenOver = finalOwners.items.filter((j) => victims.includes(j._id) && j.metrics?.server_id === survivorId).length;

  figure(SCENARIO, 'jobs started (answered 200)', ids.length);
  figure(SCENARIO, 'jobs running on the killed replica', victims.length);
  figure(SCENARIO, 'of those, finished by the survivor', takenOver);
  figure(SCENARIO, 'jobs not complete', notComplete.length, '', '0');
  figure(SCENARIO, 'task executions', report.executions);
  figure(SCENARIO, 'in flight at the kill, run again (allowed)', report.rerunAfterCrash);
  figure(SCENARIO, 'tasks run twice', report.duplicates.length, '', '0');
  figure(SCENARIO, 'takeover: kill to first job resumed', resumed.length > 0 ? Math.min(...resumed) : NaN, 'ms', '<= 5000 ms');
  figure(
    SCENARIO,
    'takeover: kill to every job resumed (p50/max)',
    `${quantile(resumed, 0.5).toFixed(0)} / ${resumed.length > 0 ? Math.max(...resumed).toFixed(0) : 'NaN'} ms`,
    '',
    '<= 5000 ms',
  );

  expect(notComplete).toEqual([]);
  expect(report.duplicates).toEqual([]);
  expect(report.neverRan).toEqual([]);
  expect(serverErrors.map((s) => `start ${s.i}: ${s.status}`)).toEqual([]);
  expect(platform.crashed()).toEqual([]);
});
