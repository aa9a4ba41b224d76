/**
 * Jobs whose tasks can be counted: a workflow of two `GatewayDevices` `sendRequest` tasks, each to a
 * device of the counting peer (`/a/<jobId>`, `/b/<jobId>`), with a built-in task between them. What
 * "a task ran twice" means, and how the campaign decides it, is here.
 */
import { eventually, task, workflowDocument } from '@nap/testing';
import type { Client } from './platform';
import type { DevicePeer, Execution } from './device-peer';

/** The counted tasks of the workflow and the peer path each calls. */
export const COUNTED_TASKS = { h1: 'a', h2: 'b' } as const;
export type CountedTask = keyof typeof COUNTED_TASKS;

/** Creates the two counting devices and the workflow `name`. */
export async function createCountingWorkflow(client: Client, peer: DevicePeer, name: string): Promise<void> {
  for (const device of Object.values(COUNTED_TASKS)) {
    await client.ok('POST', '/gw/createInventoryDevice', {
      name: `counter-${device}`,
      variables: { gw_http_base_url: `${peer.baseUrl}/${device}` },
    });
  }
  const request = (device: string) =>
    task(
      'sendRequest',
      { host: `counter-${device}`, method: 'POST', endpoint: '$var.job._id', json: { from: 'fault-campaign' } },
      { status_code: null },
      { app: 'GatewayDevices' },
    );
  await client.ok('POST', '/automation-studio/automations', {
    automation: workflowDocument(
      name,
      {
        h1: request(COUNTED_TASKS.h1),
        n2: task('newVariable', { name: 'between', value: true }, { value: null }, { type: 'operation' }),
        h2: request(COUNTED_TASKS.h2),
      },
      [
        ['workflow_start', 'h1'],
        ['h1', 'n2'],
        ['n2', 'h2'],
        ['h2', 'workflow_end'],
      ],
    ),
  });
}

/** Jobs as stored at the moment of a crash: status, engine, and task statuses by task id; a job not stored then is absent. */
export type CrashSnapshot = Map<string, { status: string; owner?: string; tasks: Record<string, string> }>;

/** A crash snapshot from job documents. */
export function snapshotOf(
  jobs: { _id: string; status?: string; metrics?: { server_id?: string }; tasks?: Record<string, { status?: string }> }[],
): CrashSnapshot {
  return new Map(
    jobs.map((j) => [
      j._id,
      {
        status: String(j.status),
        ...(j.metrics?.server_id ? { owner: j.metrics.server_id } : {}),
        tasks: Object.fromEntries(Object.entries(j.tasks ?? {}).map(([id, t]) => [id, String(t.status)])),
      },
    ]),
  );
}

/**
 * Whether a counted task ran more often than allowed. The engine is at-least-once for a task in
 * flight at a crash: its start was stored (`running`) and its outcome was not, so the engine that
 * resumes the job runs it again. Such a task may run twice: once before the crash, once after.
 * Anything else is a task run twice, a failure: a task whose outcome was stored before the crash
 * and ran again, a third execution, two executions after the crash, two executions of a job whose
 * engine did not die, or two executions before it.
 *
 * `settledAt` is when the dead engine's last request can have reached the peer (the kill, plus a
 * grace for a request already on its way through another service); `atCrash` the task's status as
 * stored at the crash; `touchedByCrash` whether the job's engine is the one that died.
 */
export function judgeTask(
  executions: Execution[],
  settledAt: number,
  atCrash: string | undefined,
  touchedByCrash: boolean,
): { verdict: 'once' | 'rerun-after-crash' | 'duplicate' | 'never'; detail: string } {
  const before = executions.filter((e) => e.at < settledAt).length;
  const after = executions.length - before;
  const detail = `${executions.length} executions (${before} before the crash, ${after} after), stored as ${atCrash ?? 'not stored'} at the crash`;
  if (executions.length === 0) return { verdict: 'never', detail };
  if (executions.length === 1) return { verdict: 'once', detail };
  if (touchedByCrash && executions.length === 2 && before === 1 && after === 1 && atCrash === 'running')
    return { verdict: 'rerun-after-crash', detail };
  return { verdict: 'duplicate', detail };
}

/** What happened to the counted tasks of a set of jobs. */
export interface ExecutionReport {
  executions: number;
  rerunAfterCrash: number;
  duplicates: string[];
  neverRan: string[];
}

/** Judges every counted task of the given (complete) jobs (see {@link judgeTask}). */
export function judgeJobs(
  peer: DevicePeer,
  jobIds: string[],
  settledAt: number,
  snapshot: CrashSnapshot,
  touched: (jobId: string) => boolean,
): ExecutionReport {
  const report: ExecutionReport = { executions: 0, rerunAfterCrash: 0, duplicates: [], neverRan: [] };
  for (const jobId of jobIds) {
    for (const [task, device] of Object.entries(COUNTED_TASKS)) {
      const executions = peer.of(device, jobId);
      report.executions += executions.length;
      const { verdict, detail } = judgeTask(executions, settledAt, snapshot.get(jobId)?.tasks[task], touched(jobId));
      if (verdict === 'rerun-after-crash') report.rerunAfterCrash += 1;
      else if (verdict === 'duplicate') report.duplicates.push(`job ${jobId} task ${task}: ${detail}`);
      else if (verdict === 'never') report.neverRan.push(`job ${jobId} task ${task}: ${detail}`);
    }
  }
  return report;
}

/** Starts `count` jobs of `workflow`, `concurrency` at a time; calls `onAnswer` after each answer. */
export async function startJobs(
  client: Client,
  workflow: string,
  count: number,
  concurrency: number,
  onAnswer: (answered: { i: number; status: number; jobId?: string }) => Promise<void> | void,
): Promise<{ i: number; status: number; jobId?: string }[]> {
  const results: { i: number; status: number; jobId?: string }[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next;
      next += 1;
      const res = await client.request('POST', `/workflow_engine/startJobWithOptions/${workflow}`, { options: { variables: { i } } });
      const id = (res.body as { _id?: unknown } | undefined)?._id;
      const answer = { i, status: res.status, ...(res.status === 200 && typeof id === 'string' ? { jobId: id } : {}) };
      results.push(answer);
      await onAnswer(answer);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}

/** Status of each job (by id) through the API; `missing` for a 404. */
export async function jobStatuses(client: Client, ids: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const id of ids) {
    const res = await client.request('GET', `/operations-manager/jobs/${id}`);
    out.set(id, res.status === 404 ? 'missing' : ((res.body as { data?: { status?: string } }).data?.status ?? `http ${res.status}`));
  }
  return out;
}

/** Waits (bounded) until every job has ended; the status of each, and those that are not `complete`. */
export async function waitForJobsToEnd(
  client: Client,
  ids: string[],
  timeoutMs: number,
): Promise<{ statuses: Map<string, string>; notComplete: string[] }> {
  const statuses = await eventually(
    `the end of ${ids.length} jobs`,
    async () => {
      const current = await jobStatuses(client, ids);
      return [...current.values()].every((s) => s === 'complete' || s === 'error' || s === 'canceled') && current;
    },
    { timeoutMs, intervalMs: 500 },
  );
  return { statuses, notComplete: [...statuses].filter(([, s]) => s !== 'complete').map(([id, s]) => `${id}: ${s}`) };
}
