import { AppError } from '@nap/contracts';
import type { Caller, JobDocument, JobErrorEntry, Task, WorkflowDocument } from '@nap/contracts';
import { END, START } from './graph';
import { jobVariableOf } from './references';

/** Where a child job reports: the parent job, its childJob task and the iteration. */
export interface ParentLink {
  job: string;
  task: string;
  iteration: number;
}

/** A job as stored: the job document plus the engine's own members (`runAs` never leaves the service). */
export interface JobRecord extends JobDocument {
  variables: Record<string, unknown>;
  error: JobErrorEntry[];
  ancestors: string[];
  groups: string[];
  /** The caller that tasks of the job act as (the initiator, with the roles they had at start). */
  runAs?: Caller;
  parent?: ParentLink;
  /** The workflow the job was made from. */
  workflow?: { _id?: string; name: string };
}

/** A manual task's answer waiting for the engine: written by finishTask, consumed by the owner. */
export interface FinishRequest {
  variables: Record<string, unknown>;
  finishState: 'success' | 'failure';
  by: string;
  at: number;
}

/** Members that never leave the service. */
const INTERNAL_MEMBERS = ['runAs'] as const;

/** The job as the interface shows it: internal members left out. */
export function toPublicJob(job: JobRecord): JobDocument {
  const out: Record<string, unknown> = { ...job };
  for (const member of INTERNAL_MEMBERS) delete out[member];
  return out as JobDocument;
}

/**
 * The shallow job data (getJobShallow): the tasks' application, incoming arguments, returned data
 * and error information left out.
 */
export function toShallowJob(job: JobRecord): JobDocument {
  const out = toPublicJob(job);
  const tasks: Record<string, Task> = {};
  for (const [id, task] of Object.entries(job.tasks)) {
    const { app: _app, variables, finishRequest: _finish, childRun: _childRun, loop: _loop, ...rest } = task;
    void _app;
    void _finish;
    void _childRun;
    void _loop;
    tasks[id] = { ...rest, ...(variables?.decorators ? { variables: { decorators: variables.decorators } } : {}) };
  }
  return { ...out, tasks };
}

/** Task ids end up in store paths (`tasks.<id>`): no dots, no leading `$`, not empty. */
const SAFE_TASK_ID = /^[A-Za-z0-9_-]+$/;

/**
 * The tasks of a new job: a copy of the workflow's, each `incomplete`, outgoing values emptied and
 * the `$var.job.<name>` targets of outgoing and error kept in `writes`. Throws WORKFLOW_INVALID when
 * the graph lacks its entry or exit or has an id that cannot be stored.
 */
export function copyTasks(workflow: WorkflowDocument): Record<string, Task> {
  const source = workflow.tasks ?? {};
  if (!Object.hasOwn(source, START) || !Object.hasOwn(source, END)) {
    throw new AppError('WORKFLOW_INVALID', `Workflow "${workflow.name}" has no ${Object.hasOwn(source, START) ? END : START} task`);
  }
  const tasks: Record<string, Task> = {};
  for (const [id, original] of Object.entries(source)) {
    if (!SAFE_TASK_ID.test(id)) throw new AppError('WORKFLOW_INVALID', `Workflow "${workflow.name}" has a task id "${id}" that is not letters, digits, "_" or "-"`);
    const task = JSON.parse(JSON.stringify(original ?? {})) as Task;
    const variables = (task.variables ?? {}) as NonNullable<Task['variables']>;
    const outgoing: Record<string, unknown> = {};
    const writes: { outgoing?: Record<string, string>; error?: string } = {};
    for (const [name, target] of Object.entries(variables.outgoing ?? {})) {
      outgoing[name] = null;
      const jobVariable = jobVariableOf(target);
      if (jobVariable !== undefined) (writes.outgoing ??= {})[name] = jobVariable;
    }
    const errorTarget = jobVariableOf(variables.error);
    if (errorTarget !== undefined) writes.error = errorTarget;
    task.variables = { ...variables, incoming: variables.incoming ?? {}, outgoing, error: '' };
    if (writes.outgoing !== undefined || writes.error !== undefined) task.writes = writes;
    task.status = 'incomplete';
    tasks[id] = task;
  }
  return tasks;
}

/** A caller may see a job when it is an admin, shares a group with it, started it, or the job has no groups. */
export function canSeeJob(job: Pick<JobRecord, 'groups' | 'metrics' | 'runAs'>, caller: Caller): boolean {
  if (caller.roles.includes('admin') || caller.id === 'system') return true;
  const groups = job.groups ?? [];
  if (groups.length === 0) return true;
  if (job.runAs?.id === caller.id || job.metrics?.owner === caller.username) return true;
  return groups.some((g) => caller.groups.includes(g));
}

/** The store filter limiting a job query to what the caller may see (nothing for admins). */
export function visibilityFilter(caller: Caller): Record<string, unknown> | undefined {
  if (caller.roles.includes('admin') || caller.id === 'system') return undefined;
  return { $or: [{ groups: { $size: 0 } }, { groups: { $in: [...caller.groups] } }, { 'runAs.id': { $eq: caller.id } }] };
}

/** Throws GROUP_ACCESS_DENIED unless the caller may run a workflow with these groups. */
export function assertMayRun(workflow: Pick<WorkflowDocument, 'name' | 'groups'>, caller: Caller): void {
  const groups = workflow.groups ?? [];
  if (groups.length === 0 || caller.roles.includes('admin') || caller.id === 'system') return;
  if (!groups.some((g) => caller.groups.includes(g))) {
    throw new AppError('GROUP_ACCESS_DENIED', `Workflow "${workflow.name}" is shared with groups the caller "${caller.username}" is not in`);
  }
}
