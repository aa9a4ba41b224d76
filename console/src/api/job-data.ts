import type { JobDocument, JobStatus, Task, TaskRetry, TaskStatus } from '@nap/contracts';

/** Job statuses the Status filter offers, in the order an engineer on call scans them. */
export const JOB_STATUSES: readonly JobStatus[] = ['running', 'paused', 'complete', 'error', 'canceled'];

/** Statuses after which nothing more happens to a job. */
const FINAL_JOB_STATUSES: ReadonlySet<string> = new Set(['complete', 'error', 'canceled']);

export function isFinalStatus(status: string | undefined): boolean {
  return status !== undefined && FINAL_JOB_STATUSES.has(status);
}

/** True for a job that may be canceled: running or paused (the platform refuses the others). */
export function isCancelable(status: string | undefined): boolean {
  return status === 'running' || status === 'paused';
}

/**
 * When a job's duration ends: its end time once final; until then now, paused or not (a paused
 * job's time goes on: the list, its page and a reload say the same). Undefined before it started.
 */
export function jobDurationMs(
  job: { status?: string | undefined; startTime?: number | undefined; endTime?: number | undefined },
  now: number,
): number | undefined {
  // a final job without an end time: how long it ran is not known
  if (isFinalStatus(job.status)) return job.endTime === undefined ? undefined : durationMs(job.startTime, job.endTime, now);
  return durationMs(job.startTime, undefined, now);
}

/** True while a job's duration counts up on screen: running or paused. */
export function isTicking(status: string | undefined): boolean {
  return status === 'running' || status === 'paused';
}

/** The members of a job the list shows (`include=` keeps the page small: a job carries every task). */
export const JOB_LIST_FIELDS = ['_id', 'name', 'status', 'created_by', 'metrics', 'description', 'ancestors', 'trigger', 'error'] as const;

/** A row of the jobs table, read from a job-page item (the page's items are untyped job projections). */
export interface JobSummary {
  _id: string;
  name: string;
  status: string;
  createdBy: string;
  /** What the person who started it wrote (a change number, a reason); '' when nothing. */
  description: string;
  startTime?: number;
  endTime?: number;
  /** The trigger that started the job, when one did. */
  trigger?: JobTrigger;
  /** The job whose `childJob` task started this one (the last of its ancestors), when one did. */
  parentId?: string;
  /** The ids of the tasks where the job stopped (its `error` items), first first; empty when none. */
  errorTasks?: string[];
}

/** The trigger that started a job: its id, name, type and, for a schedule, the due time. */
export interface JobTrigger {
  id: string;
  name: string;
  type: string;
  due?: number;
}

/** The trigger a job names (`trigger` of the job document); undefined when a person, a script or a parent job started it. */
export function jobTriggerOf(job: { trigger?: unknown }): JobTrigger | undefined {
  const t = record(job.trigger);
  const id = text(t._id);
  if (id === '') return undefined;
  const due = epoch(t.due);
  return { id, name: text(t.name) || id, type: text(t.type), ...(due !== undefined ? { due } : {}) };
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function epoch(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function toJobSummary(item: Record<string, unknown>): JobSummary {
  const metrics = record(item.metrics);
  const summary: JobSummary = {
    _id: text(item._id),
    name: text(item.name),
    status: text(item.status),
    createdBy: text(item.created_by) || text(metrics.owner),
    description: text(item.description).trim(),
  };
  const start = epoch(metrics.start_time);
  const end = epoch(metrics.end_time);
  if (start !== undefined) summary.startTime = start;
  if (end !== undefined) summary.endTime = end;
  const trigger = jobTriggerOf(item);
  if (trigger !== undefined) summary.trigger = trigger;
  const ancestors = Array.isArray(item.ancestors) ? item.ancestors.filter((id): id is string => typeof id === 'string') : [];
  const parentId = ancestors[ancestors.length - 1];
  if (parentId !== undefined) summary.parentId = parentId;
  const errorTasks = Array.isArray(item.error) ? [...new Set(item.error.map((e) => text(record(e).task)).filter((t) => t !== ''))] : [];
  if (errorTasks.length > 0) summary.errorTasks = errorTasks;
  return summary;
}

/**
 * Why a job stopped, in one line for the jobs list: the task where it stopped (its summary) and
 * what that task reported (its own error), or how it finished (`finished as failure`) when it
 * reported nothing; undefined when the job's document says neither.
 */
export function jobStopReason(job: { tasks?: unknown }, taskIds: readonly string[]): string | undefined {
  const tasks = record(job.tasks);
  for (const id of taskIds) {
    const task = record(tasks[id]) as Task;
    const name = text(task.summary) || id;
    const own = taskErrorText(task);
    if (own !== undefined) return `${name}: ${own}`;
    const finish = text(record(task.metrics).finish_state);
    if (finish === 'failure' || finish === 'error') return `${name} finished as ${finish}`;
  }
  return undefined;
}

/** How long a job or task ran (until now while it runs), ms; undefined before it started. */
export function durationMs(start: number | undefined, end: number | undefined, now: number): number | undefined {
  if (start === undefined) return undefined;
  return Math.max(0, (end ?? now) - start);
}

/**
 * `850 ms`, `12 s`, `3 min 05 s`, `2 h 04 min`, `3 d 4 h`: short enough for a table column. A
 * duration is rounded to the unit shown (2,999 ms ran `3 s`), never cut down; a countdown
 * (`floor`) says the whole units it has left, as a clock does.
 */
export function formatDuration(ms: number | undefined, mode: 'round' | 'floor' = 'round'): string {
  if (ms === undefined || !Number.isFinite(ms)) return '—';
  const to = mode === 'round' ? Math.round : Math.floor;
  if (to(ms) < 1000) return `${Math.max(0, to(ms))} ms`;
  const seconds = to(ms / 1000);
  if (seconds < 60 * 60) {
    const minutes = Math.floor(seconds / 60);
    return minutes === 0 ? `${seconds} s` : `${minutes} min ${String(seconds % 60).padStart(2, '0')} s`;
  }
  const minutes = to(ms / 60_000);
  if (minutes < 48 * 60) return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
  const hours = to(ms / 3_600_000);
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** A point in time on the engineer's clock, written the way logs write it: `2026-01-12 14:03:22`. */
export function formatTime(epochMs: number | undefined): string {
  if (epochMs === undefined) return '—';
  const d = new Date(epochMs);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** Task ids of the graph's entry and exit markers. */
export const START = 'workflow_start';
export const END = 'workflow_end';

/** What people call a task: its summary, else its display name or name, else its id. */
export function taskLabel(task: Pick<Task, 'summary' | 'displayName' | 'name'> | undefined, id: string): string {
  if (id === START) return 'Start';
  if (id === END) return 'End';
  return task?.summary || task?.name || task?.displayName || id;
}

export function taskStatus(task: Pick<Task, 'status'> | undefined): TaskStatus | string {
  return task?.status ?? 'incomplete';
}

/** Built-in manual tasks of the engine (app WorkFlowEngine). */
const MANUAL_BUILTINS = new Set(['ViewData', 'ViewDiff']);

/** True for a task that waits for a person (type manual, or a manual built-in). */
export function isManualTask(task: Task | undefined): boolean {
  if (!task) return false;
  return task.type === 'manual' || (task.app === 'WorkFlowEngine' && MANUAL_BUILTINS.has(String(task.name)));
}

/** True for a manual task that waits for a person now. */
export function isWaitingForPerson(job: Pick<JobDocument, 'status'>, task: Task | undefined): boolean {
  return isManualTask(task) && task?.status === 'running' && job.status !== 'canceled';
}

/**
 * The route that shows a MOP manual task (`GET /mop/task/<name>`), from the task's `view` or its
 * name; undefined for the engine's own manual tasks (ViewData), whose view is their variables.
 */
export function manualTaskRoute(task: Task): string | undefined {
  if (typeof task.view === 'string' && task.view.startsWith('/mop/task/')) return task.view;
  if (task.app === 'MOP' && typeof task.name === 'string') return `/mop/task/${task.name}`;
  return undefined;
}

/** True when the workflow leaves the task by a failure transition: finishing it as a failure is a real choice. */
export function hasFailureTransition(job: Pick<JobDocument, 'transitions'>, taskId: string): boolean {
  return Object.values(job.transitions?.[taskId] ?? {}).some((t) => t.state === 'failure');
}

/**
 * Where finishing a task in a state takes the job, in words after "leads": to the tasks its
 * transitions of that state go to (`to “Apply the change”`), to the end of the job, or back to a
 * task that then runs again (a revert: the review task of Command Template Runner sends a failure
 * back to the check). Undefined when the workflow leaves the task by no transition of that state.
 */
export function whereItLeads(
  job: Pick<JobDocument, 'transitions' | 'tasks'>,
  taskId: string,
  state: 'success' | 'failure',
): string | undefined {
  const targets = Object.entries(job.transitions?.[taskId] ?? {}).filter(([, t]) => t.state === state);
  if (targets.length === 0) return undefined;
  return targets
    .map(([to, t]) => {
      if (to === END) return 'to the end of the job';
      const name = `“${taskLabel(job.tasks[to], to)}”`;
      return t.type === 'revert' ? `back to ${name}, which runs again` : `to ${name}`;
    })
    .join(' and ');
}

/** A task that failed or errored in a job stopped on an error: `POST …/retryTask` may run it again. */
export function isRetryable(job: Pick<JobDocument, 'status'>, task: Task | undefined): boolean {
  if (job.status !== 'error' || !task) return false;
  const finish = task.metrics?.finish_state;
  return task.status === 'error' || finish === 'error' || finish === 'failure';
}

/**
 * What a task itself reported as its error, once it failed: its `error` variable names where the
 * error goes (`$var.job.x`) until then, and holds the error after (a text, or an object shown as JSON).
 */
export function taskErrorText(task: Task | undefined): string | undefined {
  const raw: unknown = task?.variables?.error;
  if (typeof raw === 'string') return raw !== '' && !raw.startsWith('$var.') ? raw : undefined;
  return raw !== null && typeof raw === 'object' ? JSON.stringify(raw) : undefined;
}

/**
 * How a task that ran to its end did not succeed: `failure` or `error` for a task complete whose
 * finish state says so (its status alone reads "complete"); undefined for any other task.
 */
export function unsuccessfulFinish(task: Pick<Task, 'status' | 'metrics'> | undefined): 'failure' | 'error' | undefined {
  const finish = task?.metrics?.finish_state;
  return task?.status === 'complete' && (finish === 'failure' || finish === 'error') ? finish : undefined;
}

/** The ids of a job's ancestors, root first (the job itself not included). */
export function ancestorIds(job: Pick<JobDocument, 'ancestors'>): string[] {
  return [...(job.ancestors ?? [])];
}

function choiceText(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/**
 * What a person answered a finished manual task, as one sentence: the choice as the workflow named
 * it (a ViewData task's `btn_success`/`btn_failure`, "Approve"/"Reject"), who chose it
 * (`metrics.user`) and when (`metrics.end_time`): `Answered “Approve” by admin at 2026-01-12
 * 01:34:15: took its success path.`, or `Finished as failure by admin at …` where the task names no
 * choice. Undefined for any other task (not manual, not finished by a person's answer).
 */
export function manualAnswerText(task: Task | undefined): string | undefined {
  const finish = task?.metrics?.finish_state;
  if (!task || !isManualTask(task) || task.status !== 'complete' || (finish !== 'success' && finish !== 'failure')) return undefined;
  const shown = task.variables?.resolved ?? task.variables?.incoming ?? {};
  const choice = choiceText(finish === 'success' ? shown.btn_success : shown.btn_failure);
  const user = choiceText(task.metrics?.user);
  const who = `${user !== undefined ? ` by ${user}` : ''}${task.metrics?.end_time !== undefined ? ` at ${formatTime(task.metrics.end_time)}` : ''}`;
  return choice !== undefined ? `Answered “${choice}”${who}: took its ${finish} path.` : `Finished as ${finish}${who}.`;
}

/**
 * One retry by hand of a task, as one sentence: `Retried by admin at 2026-01-12 01:35:02 (failed
 * before: <message>); changed type, device.` The previous error is the one the platform kept
 * (shortened, secrets masked); the variables are names only.
 */
export function retryText(retry: TaskRetry): string {
  const before =
    retry.error !== undefined && retry.error !== ''
      ? ` (failed before: ${retry.error})`
      : retry.finish_state !== undefined
        ? ` (finished as ${retry.finish_state} before)`
        : '';
  const changed = retry.variables.length > 0 ? `changed ${retry.variables.join(', ')}` : 'no variable changed';
  return `Retried by ${retry.by} at ${formatTime(retry.at)}${before}; ${changed}.`;
}

/**
 * A task's retries by hand, oldest first, each as {@link retryText}, and how many earlier ones the
 * platform no longer keeps (it keeps the last few; `number` counts them all). Empty when none.
 */
export function retryHistory(task: Pick<Task, 'retries'> | undefined): { lines: string[]; earlier: number } {
  const retries = task?.retries ?? [];
  return { lines: retries.map(retryText), earlier: Math.max(0, (retries[0]?.number ?? 1) - 1) };
}
