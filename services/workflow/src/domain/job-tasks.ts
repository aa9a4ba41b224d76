import { AppError } from '@nap/contracts';
import type { Doc, Filter, Projection } from '@nap/store';
import { isRecord } from '@nap/util';
import { isActiveStatus } from './job-model';

/**
 * Jobs whose tasks a task query searches at most when it does not name the jobs it is about
 * (running or paused ones, or by id; see {@link taskJobScope}): the most recently started that
 * match its job members. The answer says when the window left matching jobs out (`metadata.bounded`).
 */
export const TASK_SCAN_JOBS = 2_000;
/** Jobs the task list reads at a time (a job holds every task of its workflow): one batch is in memory at once. */
export const TASK_BATCH_JOBS = 250;

/**
 * The tasks of jobs as the task list shows them: one item per task (entry and exit left out), with
 * its job's id, name and status, and `_id` `<jobId>:<taskId>`. The engine's bookkeeping on a task
 * (pending answers, loop and child-run state) stays inside.
 */
export function flattenTasks(jobs: readonly Record<string, unknown>[]): Doc[] {
  const out: Doc[] = [];
  for (const job of jobs) {
    if (!isRecord(job.tasks) || typeof job._id !== 'string') continue;
    const summary = { _id: job._id, name: String(job.name ?? ''), status: String(job.status ?? '') };
    for (const [id, task] of Object.entries(job.tasks)) {
      if (!isRecord(task) || id === 'workflow_start' || id === 'workflow_end') continue;
      const { finishRequest: _f, loop: _l, childRun: _c, writes: _w, retryAt: _r, ...shown } = task;
      out.push({ ...shown, _id: `${job._id}:${id}`, id, job: summary });
    }
  }
  return out;
}

/** The task list's members that are its job's, and the job document's fields they show. */
const JOB_MEMBERS: Readonly<Record<string, string>> = { 'job._id': '_id', 'job.name': 'name', 'job.status': 'status' };

/** What a task query asks of the jobs whose tasks it searches (see {@link taskJobScope}). */
export interface TaskJobScope {
  /** What a job must match for any of its tasks to match: the query's conditions on job members, as job fields. */
  filter: Filter;
  /**
   * True when the jobs the filter names are few by nature, whatever the history's size: jobs named by
   * id, or jobs running or paused (live work, not history). Every one of them is searched; for
   * other queries the task list searches a window of the most recently started matching jobs.
   */
  everyJob: boolean;
}

/** The conditions of a filter that every match meets: the members of its top-level `$and`s. */
function conjuncts(filter: Filter): Filter[] {
  const out: Filter[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' && Array.isArray(value)) for (const part of value) if (isRecord(part)) out.push(...conjuncts(part as Filter));
    if (!key.startsWith('$')) out.push({ [key]: value } as Filter);
  }
  return out;
}

/** The values a condition allows its field, when it is an equality or an `$in` of them; undefined otherwise. */
function allowedValues(condition: unknown): unknown[] | undefined {
  if (condition === null || typeof condition !== 'object') return [condition];
  if (!isRecord(condition)) return undefined;
  const keys = Object.keys(condition);
  if (keys.length !== 1) return undefined;
  if (keys[0] === '$eq') return [condition.$eq];
  if (keys[0] === '$in' && Array.isArray(condition.$in)) return condition.$in;
  return undefined;
}

/**
 * The jobs a task filter (`buildJobQuery` over task items) can find tasks in: each condition the
 * filter requires of `job._id`, `job.name` or `job.status` becomes the same condition on the job's
 * `_id`, `name` or `status`, which the job indexes serve. Conditions under `or`/`not` are left to the
 * task filter (they do not narrow the jobs).
 */
export function taskJobScope(filter: Filter): TaskJobScope {
  const clauses: Filter[] = [];
  let everyJob = false;
  for (const condition of conjuncts(filter)) {
    const [member, value] = Object.entries(condition)[0] ?? [];
    const field = member === undefined ? undefined : JOB_MEMBERS[member];
    if (field === undefined) continue;
    clauses.push({ [field]: value } as Filter);
    const allowed = allowedValues(value);
    if (allowed === undefined) continue;
    if (field === '_id' || (field === 'status' && allowed.every((status) => typeof status === 'string' && isActiveStatus(status))))
      everyJob = true;
  }
  return { filter: clauses.length === 0 ? {} : clauses.length === 1 ? (clauses[0] as Filter) : { $and: clauses }, everyJob };
}

/**
 * The projection of the task list made of a job query's (`include`, `exclude`): every task item
 * keeps its `_id`, and its job's summary `{ _id, name, status }` is shown whole or not at all, so
 * that `include=job.name` shows `job`. Excluding `_id` or a member of `job` is refused
 * (JOB_QUERY_INVALID naming it); `exclude=job` leaves the summary out.
 */
export function taskProjection(projection: Projection): Projection {
  const out: Projection = {};
  for (const [field, value] of Object.entries(projection)) {
    const ofJob = field.startsWith('job.');
    if (value === 1) out[ofJob ? 'job' : field] = 1;
    else if (field === '_id' || ofJob)
      throw new AppError(
        'JOB_QUERY_INVALID',
        field === '_id'
          ? 'exclude names _id, which every task keeps (its id)'
          : `exclude names ${field}, which every task keeps (its job's summary is shown whole); exclude job to leave the summary out`,
      );
    else out[field] = 0;
  }
  return out;
}
