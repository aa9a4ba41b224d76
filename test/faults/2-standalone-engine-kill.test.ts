/**
 * Scenario 2: kill -9 of the workflow engine (the standalone process) while 50 jobs are being
 * started and run. After a restart on the same data directory every job whose start was answered
 * finishes (complete), no task runs twice (see support/jobs.ts for what twice means), and the time
 * the restarted engine takes to resume the interrupted jobs is printed: it keeps its engine id in
 * the data directory, so it resumes its own jobs at once rather than after a lease.
 */
import path from 'node:path';
import { createEmbeddedStore } from '@nap/store';
import { DevicePeer } from './support/device-peer';
import { figure, quantile } from './support/figures';
import { COUNTED_TASKS, createCountingWorkflow, judgeJobs, snapshotOf, startJobs, waitForJobsToEnd } from './support/jobs';
import type { CrashSnapshot } from './support/jobs';
import { Standalone, dataDirectory, progress } from './support/platform';

const SCENARIO = '2 standalone engine kill -9, 50 jobs';
const JOBS = 50;
/** How long the counting device holds each request: tasks are in flight when the kill lands. */
const HOLD_MS = 400;

const data = dataDirectory('engine');
let platform: Standalone;
let peer: DevicePeer;

afterAll(async () => {
  await platform?.stop();
  await peer?.stop();
  data.remove();
});

/** The jobs as the dead process left them on disk. */
async function readSnapshot(dataDir: string): Promise<CrashSnapshot> {
  const store = createEmbeddedStore({ path: path.join(dataDir, 'nap_workflow') });
  try {
    return snapshotOf(await store.collection<{ _id: string }>('jobs').find({}));
  } finally {
    await store.close();
  }
}

it('finishes every job whose start was answered, each task once (or twice if in flight at the kill)', async () => {
  peer = await DevicePeer.start(HOLD_MS);
  platform = await Standalone.start(data.dir);
  const { client } = platform;
  await createCountingWorkflow(client, peer, 'fault-counted');

  let killedAt = 0;
  /** When the process was seen gone: a request it sent before that may still reach the device after the signal. */
  let deadAt = 0;
  const kill = async () => {
    if (killedAt !== 0) return;
    killedAt = Date.now();
    await platform.kill();
    deadAt = Date.now();
  };
  // start the jobs 10 at a time; the kill comes once half of them were answered, with tasks in flight
  let answered = 0;
  const starts = await startJobs(client, 'fault-counted', JOBS, 10, async ({ status }) => {
    if (status === 200) answered += 1;
    if (answered >= JOBS / 2) await kill();
  });
  await kill();
  const acknowledged = starts.filter((s) => s.jobId !== undefined).map((s) => s.jobId as string);
  const snapshot = await readSnapshot(data.dir);
  const inFlight = [...snapshot.values()].filter((j) =>
    Object.entries(j.tasks).some(([id, status]) => id in COUNTED_TASKS && status === 'running'),
  ).length;
  const neverStarted = [...snapshot.values()].filter((j) => j.tasks.workflow_start !== 'complete').length;
  progress(
    `scenario 2: killed with ${acknowledged.length} starts answered, ${snapshot.size} jobs stored, ${inFlight} with a counted task in flight, ${neverStarted} not past workflow_start; restarting`,
  );

  const restartAt = Date.now();
  await platform.launch();
  const readyAt = Date.now();
  const stored = [...snapshot.keys()];
  // every job stored at the kill, answered or not, runs to its end; the answered ones are all stored
  const { notComplete } = await waitForJobsToEnd(client, stored, 180_000);
  const lostStarts = acknowledged.filter((id) => !snapshot.has(id));
  const report = judgeJobs(peer, stored, deadAt, snapshot, () => true);
  const firstAfter = peer.executions.filter((e) => e.at >= restartAt).map((e) => e.at);
  const resumeFromStart = firstAfter.length > 0 ? Math.min(...firstAfter) - restartAt : NaN;
  const firstResumedAt = platform.process?.loggedAt('Resuming job') ?? NaN;
  // per interrupted job: from the restart to its first task execution after it
  const perJob = stored
    .map((id) =>
      Object.values(COUNTED_TASKS)
        .flatMap((device) => peer.of(device, id))
        .filter((e) => e.at >= restartAt)
        .map((e) => e.at),
    )
    .filter((times) => times.length > 0)
    .map((times) => Math.min(...times) - restartAt);
  const serverErrors = starts.filter((s) => s.status >= 500);

  figure(SCENARIO, 'starts answered 200 before the kill', acknowledged.length);
  figure(SCENARIO, 'jobs stored at the kill', snapshot.size);
  figure(SCENARIO, 'jobs not past workflow_start at the kill', neverStarted);
  figure(SCENARIO, 'jobs with a counted task in flight at the kill', inFlight);
  figure(SCENARIO, 'jobs not complete after the restart', notComplete.length, '', '0');
  figure(SCENARIO, 'task executions', report.executions);
  figure(SCENARIO, 'in flight at the kill, run again (allowed)', report.rerunAfterCrash);
  figure(SCENARIO, 'tasks run twice', report.duplicates.length, '', '0');
  figure(SCENARIO, 'restart: process start to listening', readyAt - restartAt, 'ms');
  figure(
    SCENARIO,
    'resume: process start to first job resumed',
    firstResumedAt - restartAt,
    'ms',
    'at once, no lease wait (lease 3000 ms)',
  );
  figure(SCENARIO, 'resume: process start to first task', resumeFromStart, 'ms');
  figure(
    SCENARIO,
    'resume: process start to each job moving, p50/max',
    `${quantile(perJob, 0.5).toFixed(0)} / ${Math.max(...perJob).toFixed(0)} ms`,
  );

  expect(lostStarts).toEqual([]);
  if (notComplete.length > 0) {
    const first = await client.request('GET', `/operations-manager/jobs/${String(notComplete[0]?.split(':')[0])}`);
    progress(`scenario 2: a job that did not complete: ${JSON.stringify((first.body as { data?: unknown }).data).slice(0, 3_000)}`);
  }
  expect(notComplete).toEqual([]);
  for (const line of report.duplicates) {
    const jobId = /job (\S+)/.exec(line)?.[1] ?? '';
    const logged = (platform.process?.output() ?? '').split('\n').filter((l) => l.includes(jobId));
    const executions = Object.values(COUNTED_TASKS).flatMap((device) =>
      peer.of(device, jobId).map((e) => `${device} +${e.at - killedAt} ms`),
    );
    progress(`scenario 2: ${line}\n  executions: ${executions.join(', ')}\n  logged: ${logged.join('\n  ')}`);
  }
  expect(report.duplicates).toEqual([]);
  expect(report.neverRan).toEqual([]);
  expect(serverErrors).toEqual([]);
  expect(platform.process?.crashed()).toBe(false);
});
