import {
  AppError,
  RELEASE,
  audienceAdmits,
  declaredSecretPaths,
  maskDeclaredSecrets,
  namedSecretPaths,
  redactSecrets,
  unitedSecretPaths,
} from '@nap/contracts';
import type { Caller, Decorator, JobAudience, JobDocument, JobErrorEntry, JobEventName, Task, WorkflowDocument } from '@nap/contracts';
import { MANUAL_BUILTINS } from './builtins';
import { END, START } from './graph';
import { setOwn } from '@nap/util';
import { jobVariableOf } from './references';

/** Job statuses in which the engine owns and drives the job. */
export const ACTIVE_STATUSES = ['running', 'paused'] as const;

/** True when a job in this status is driven by an engine (running or paused). */
export function isActiveStatus(status: string): boolean {
  return ACTIVE_STATUSES.some((active) => active === status);
}

/** The message of the error entry of a job that can go no further. */
export const NO_TRANSITION_MESSAGE = 'No transition available from the completed tasks';

/** Where a child job reports: the parent job, its childJob task and the iteration. */
export interface ParentLink {
  job: string;
  task: string;
  iteration: number;
}

/** A manual task's answer waiting for the engine: written by finishTask, consumed by the owner. */
export interface FinishRequest {
  variables: Record<string, unknown>;
  finishState: 'success' | 'failure';
  by: string;
  at: number;
}

/** The job variables that a task's outgoing values (by name) and its error are written to. */
export interface TaskWrites {
  outgoing?: Record<string, string>;
  error?: string;
}

/** The items of a running forEach and the one its body runs for now. */
export interface LoopState {
  items: unknown[];
  index: number;
}

/** The child jobs a childJob task runs: one per input, all at once or one after the other. */
export interface ChildRun {
  workflow: string;
  sequential: boolean;
  /** No data_array: `job_details` is the one child, not a list. */
  single: boolean;
  inputs: Record<string, unknown>[];
  /**
   * Its children are counted in the root job's `treeJobs` (see {@link JobRecord.treeJobs}): set in
   * the step after the count was raised, so that a resumed task does not count them again.
   */
  counted?: boolean;
}

/** What the engine keeps on a task of a stored job besides the task itself; never part of a workflow. */
export interface TaskBookkeeping {
  finishRequest?: FinishRequest;
  loop?: LoopState;
  childRun?: ChildRun;
  writes?: TaskWrites;
  /** Epoch ms before which a task waiting for its automatic retry does not start. */
  retryAt?: number;
  /** The task returned a pin of the job's `pinned` instead of running. */
  pinned?: boolean;
}

/** A task of a stored job. */
export type JobTask = Task & TaskBookkeeping;

/**
 * An event of a job written with the job state it describes (the outbox), published afterwards.
 * `id` tells entries apart when they are acknowledged; the event's position in the job's stream
 * (`seq`) is `eventsPublished` plus its place in the outbox, so it is the same on every delivery.
 */
export interface OutboxEntry {
  id: string;
  event: JobEventName;
  payload: Record<string, unknown>;
}

/** A job as stored: the job document plus the engine's own members, which never leave the service. */
export interface JobRecord extends JobDocument {
  tasks: Record<string, JobTask>;
  variables: Record<string, unknown>;
  error: JobErrorEntry[];
  ancestors: string[];
  groups: string[];
  /** The caller that tasks of the job act as (the initiator, with the roles they had at start). */
  runAs?: Caller;
  parent?: ParentLink;
  /** The workflow the job was made from. */
  workflow?: { _id?: string; name: string };
  /** Pinned task outputs by task id or `app.method` (`options.pinned` of the start; child jobs inherit them). */
  pinned?: Record<string, Record<string, unknown>>;
  /**
   * The engine responsible for the job while it has work for one: running or paused, or events
   * still to publish. Removed once the job ended and its events are out; an engine that finds the
   * holder dead takes the lease (and `metrics.server_id` of an active job) over.
   */
  lease?: string;
  /** Events written with the state they describe and not yet acknowledged by the bus, oldest first. */
  outbox?: OutboxEntry[];
  /**
   * On a root job: how many descendant jobs its childJob tasks have counted (all levels, counted
   * before they are created). Raised only by one conditional `$inc` that refuses to pass the
   * engine's `maxJobsPerTree`, never written by a step, so that engines driving different jobs of
   * one tree share the bound.
   */
  treeJobs?: number;
  /** How many of the job's events the bus has acknowledged (they left the outbox). */
  eventsPublished?: number;
  /**
   * How many steps the engines that drove the job wrote after storing it. Each step's write is made
   * only while the count is the one its engine knows, and adds one: an engine that did not learn
   * whether a write was applied (the store failed to answer) reads the count to know, and never
   * applies a step twice.
   */
  steps?: number;
  /**
   * The archive batch that is moving this finished job out of the store (`<archive id>:<batch>`):
   * while it is set the job can no longer change (a task of it is not retried), and the batch
   * removes it once it is written to the archive.
   */
  archive?: string;
  /**
   * Who may see the job, as tokens ({@link jobVisibleTo}): what the job lists' visibility filter
   * matches through an index. Jobs stored before it existed get it when the service starts.
   */
  visibleTo?: string[];
  /**
   * The event triggers whose firing led to this job, oldest first, the last the one that started
   * it (see engine/event-triggers): a trigger does not fire for events of a job its own firing led
   * to, so that no chain of triggers starts jobs without end.
   */
  triggerChain?: string[];
  /**
   * The secrets the job started with, as paths from its variables: those the workflow's inputSchema
   * (or the trigger that started it) declares whatever their names (`format: "password"`,
   * `writeOnly`: see `declaredSecretPaths` of `@nap/contracts`), and those of secret names. Masked,
   * with every copy of their values (a manual task's resolved incoming, an output), wherever the job is shown.
   */
  secretInputs?: string[][];
  /**
   * The trace the job's task calls belong to, whichever engine drives it: the W3C context of the
   * request that started it (or its parent job's, or a trace of its own: see engine/job-trace).
   * Absent where no trace reached the start and no span is recorded.
   */
  traceContext?: JobTraceContext;
}

/** A W3C trace context as a job stores it: its `traceparent` and `tracestate` headers. */
export interface JobTraceContext {
  traceparent: string;
  tracestate?: string;
}

/**
 * The `lease` of a job stored while the job worker is deactivated: no engine drives it; the first
 * engine that claims jobs again takes it over and starts it.
 */
export const WAITING_LEASE = '(waiting for a job worker)';

/** Members of a stored job that never leave the service (not returned, queried, sorted or projected). */
export const INTERNAL_JOB_MEMBERS = [
  'runAs',
  'lease',
  'outbox',
  'eventsPublished',
  'steps',
  'archive',
  'visibleTo',
  'triggerChain',
  'treeJobs',
  'secretInputs',
  'traceContext',
] as const;

/** What a new job is made of (see {@link newJobRecord}). */
export interface NewJob {
  id: string;
  workflow: WorkflowDocument;
  /** Checked against the workflow's inputSchema already. */
  variables: Record<string, unknown>;
  caller: Caller;
  /** The engine that owns the job from the start. */
  serverId: string;
  /** Epoch ms. */
  now: number;
  description?: string;
  type?: string;
  groups?: string[];
  parent?: { link: ParentLink; ancestors: string[]; groups: string[] };
  pinned?: Record<string, Record<string, unknown>>;
  trigger?: JobTrigger;
  /** See {@link JobRecord.triggerChain}. */
  triggerChain?: string[];
  /** Variables declared secret by what started the job (a trigger's form or schema), besides the workflow's inputSchema. */
  secretPaths?: string[][];
  /** See {@link JobRecord.traceContext}. */
  traceContext?: JobTraceContext;
}

/** The trigger that started a job, as the job says. */
export type JobTrigger = NonNullable<JobDocument['trigger']>;

/**
 * The decorators of a workflow or task that a job can carry: those with a `type` and a `pointer`
 * (the studio stores decorators without checking their members; every real one has both).
 */
export function jobDecorators(decorators: readonly { type?: string; pointer?: string }[] | undefined): Decorator[] {
  return (decorators ?? []).filter((d): d is Decorator => typeof d.type === 'string' && typeof d.pointer === 'string');
}

/**
 * A new running job of a workflow, claimed by `serverId`: its tasks made from the workflow's (see
 * {@link copyTasks}), its variables with `_id` and `initiator`. `workflow_start` is stored
 * `pending`: the job as first stored already says what runs next, so an engine that resumes it
 * after a crash starts it. The job's own members and tasks are new objects, but it shares the
 * values below them (incoming values, transitions, decorators, pins, the variables' members) with
 * the workflow and the input: read it, or copy it deeply before changing it, as the engine does
 * for the copy it drives (one copy of a job, not two). A job started from a route drives it
 * uncopied: its workflow is frozen and shared by other starts (engine/workflow-cache), so what
 * changes a task sets the task's own members (a new `retrySettings`, not a count in the old one).
 */
export function newJobRecord(input: NewJob): JobRecord {
  const { workflow, caller, id, now: t } = input;
  const iso = new Date(t).toISOString();
  const tasks = copyTasks(workflow);
  (tasks[START] as JobTask).status = 'pending';
  const job: JobRecord = {
    _id: id,
    name: workflow.name,
    description: input.description ?? workflow.description ?? '',
    type: input.type ?? workflow.type ?? 'automation',
    tasks,
    transitions: workflow.transitions ?? {},
    font_size: typeof workflow.font_size === 'number' ? workflow.font_size : 12,
    created: iso,
    created_by: caller.username,
    last_updated: iso,
    last_updated_by: caller.username,
    groups: input.groups ?? input.parent?.groups ?? (Array.isArray(workflow.groups) ? [...workflow.groups] : []),
    watchers: [caller.username],
    metrics: {
      owner: caller.username,
      start_time: t,
      server_id: input.serverId,
      claim_time: t,
      app: { id: 'WorkFlowEngine', version: RELEASE },
    },
    status: 'running',
    lastUpdatedVersion: RELEASE,
    canvasVersion: typeof workflow.canvasVersion === 'number' ? workflow.canvasVersion : 3,
    decorators: Array.isArray(workflow.decorators) ? jobDecorators(workflow.decorators) : [],
    ancestors: input.parent ? [...input.parent.ancestors, input.parent.link.job] : [],
    error: [],
    variables: { ...input.variables, _id: id, initiator: caller.username },
    workflow: { ...(workflow._id ? { _id: String(workflow._id) } : {}), name: workflow.name },
    runAs: { id: caller.id, username: caller.username, roles: [...caller.roles], groups: [...caller.groups] },
    lease: input.serverId,
    outbox: [],
    eventsPublished: 0,
  };
  job.visibleTo = jobVisibleTo(job);
  // the secrets it starts with: those its inputSchema or its trigger declares, and those of secret names
  const secretInputs = unitedSecretPaths(
    declaredSecretPaths(workflow.inputSchema),
    input.secretPaths ?? [],
    namedSecretPaths(input.variables),
  );
  if (secretInputs.length > 0) job.secretInputs = secretInputs;
  if (input.parent) job.parent = input.parent.link;
  if (input.pinned !== undefined && Object.keys(input.pinned).length > 0) job.pinned = input.pinned;
  if (input.trigger !== undefined) job.trigger = input.trigger;
  if (input.triggerChain !== undefined && input.triggerChain.length > 0) job.triggerChain = [...input.triggerChain];
  if (input.traceContext !== undefined) job.traceContext = input.traceContext;
  return job;
}

/**
 * The job as the interface shows it: the members that never leave the service
 * ({@link INTERNAL_JOB_MEMBERS}) left out, and every secret masked by the platform's secret policy
 * (a task's password inputs, a token a task returned, job variables named as secrets), wherever the
 * job is returned or streamed.
 */
export function toPublicJob(job: JobRecord): JobDocument {
  const {
    runAs: _runAs,
    lease: _lease,
    outbox: _outbox,
    eventsPublished: _published,
    steps: _steps,
    archive: _archive,
    visibleTo: _visibleTo,
    triggerChain: _triggerChain,
    treeJobs: _treeJobs,
    secretInputs,
    traceContext: _traceContext,
    ...out
  } = job;
  const shown = redactSecrets(out);
  return secretInputs === undefined ? shown : maskDeclaredSecrets(shown, 'variables', job.variables, secretInputs);
}

/**
 * {@link toPublicJob} as JSON text: the answer to a start, taken as the job starts. The public job
 * shares its tasks and variables with the job the engine goes on to drive (see newJobRecord), so
 * encoded later it would show the tasks run since under the job's first status; encoded now it is
 * the job as it started, and its tasks' first state is smaller to encode than their last.
 */
export function toPublicJobJson(job: JobRecord): string {
  return JSON.stringify(toPublicJob(job));
}

/** True for a task that waits for a person: type manual, or a manual built-in (ViewData, ViewDiff). */
export function isManual(task: Task): boolean {
  return task.type === 'manual' || (task.app === 'WorkFlowEngine' && MANUAL_BUILTINS.has(String(task.name)));
}

/**
 * The shallow job data (getJobShallow): the tasks' application, incoming arguments, returned data
 * and error information (their retries' previous errors included) left out.
 */
export function toShallowJob(job: JobRecord): JobDocument {
  const out = toPublicJob(job);
  const tasks: Record<string, Task> = {};
  for (const [id, task] of Object.entries(out.tasks)) {
    const { app: _app, variables, finishRequest: _finish, childRun: _childRun, loop: _loop, retries, ...rest } = task;
    void _app;
    void _finish;
    void _childRun;
    void _loop;
    tasks[id] = {
      ...rest,
      ...(variables?.decorators ? { variables: { decorators: variables.decorators } } : {}),
      // who retried it and when stay; why it had failed is error information, which shallow data leaves out
      ...(retries !== undefined ? { retries: retries.map(({ error: _error, ...kept }) => kept) } : {}),
    };
  }
  return { ...out, tasks };
}

/** Task ids end up in store paths (`tasks.<id>`): no dots, no leading `$`, not empty. */
const SAFE_TASK_ID = /^[A-Za-z0-9_-]+$/;

/**
 * The tasks of a new job: new task objects made from the workflow's (sharing the values below them,
 * see {@link newJobRecord}), each `incomplete`, outgoing values emptied and the `$var.job.<name>`
 * targets of outgoing and error kept in `writes`. Throws WORKFLOW_INVALID when the graph lacks its
 * entry or exit or has an id that cannot be stored.
 */
export function copyTasks(workflow: WorkflowDocument): Record<string, JobTask> {
  const source = workflow.tasks ?? {};
  if (!Object.hasOwn(source, START) || !Object.hasOwn(source, END)) {
    throw new AppError('WORKFLOW_INVALID', `Workflow "${workflow.name}" has no ${Object.hasOwn(source, START) ? END : START} task`);
  }
  const tasks: [string, JobTask][] = [];
  for (const [id, original] of Object.entries(source)) {
    if (!SAFE_TASK_ID.test(id))
      throw new AppError('WORKFLOW_INVALID', `Workflow "${workflow.name}" has a task id "${id}" that is not letters, digits, "_" or "-"`);
    const variables = original.variables === undefined ? {} : original.variables;
    const outgoing: Record<string, unknown> = {};
    const writes: TaskWrites = {};
    for (const [name, target] of Object.entries(variables.outgoing ?? {})) {
      outgoing[name] = null;
      const jobVariable = jobVariableOf(target);
      if (jobVariable !== undefined) (writes.outgoing ??= {})[name] = jobVariable;
    }
    const errorTarget = jobVariableOf(variables.error);
    if (errorTarget !== undefined) writes.error = errorTarget;
    // copied member by member rather than by rest and spread (each made a copy only to copy it again):
    // the task's members but `variables` in their order, then its variables (members but
    // `decorators`, then decorators, incoming, outgoing and error where they were not)
    const taskVariables: Record<string, unknown> = {};
    for (const key in variables)
      if (key !== 'decorators' && Object.hasOwn(variables, key)) setOwn(taskVariables, key, (variables as Record<string, unknown>)[key]);
    if (variables.decorators !== undefined) taskVariables.decorators = jobDecorators(variables.decorators);
    taskVariables.incoming = variables.incoming ?? {};
    taskVariables.outgoing = outgoing;
    taskVariables.error = '';
    const task = {} as JobTask;
    for (const key in original)
      if (key !== 'variables' && Object.hasOwn(original, key))
        setOwn(task as Record<string, unknown>, key, (original as Record<string, unknown>)[key]);
    task.variables = taskVariables as JobTask['variables'];
    if (writes.outgoing !== undefined || writes.error !== undefined) task.writes = writes;
    task.status = 'incomplete';
    tasks.push([id, task]);
  }
  // made at once rather than member by member: V8 keeps an object given more than 16 or so members
  // one by one as a hash table, which every walk of the job (its answer, its encoding, the engine's
  // loops over its tasks) then enumerates several times slower; a task id is an own member, even __proto__
  return Object.fromEntries(tasks);
}

/** Who may see a job: its groups, the person who started it and the caller it acts as. */
export function jobAudience(job: Pick<JobRecord, '_id' | 'groups' | 'metrics' | 'runAs'>): JobAudience {
  return {
    jobId: job._id,
    groups: job.groups ?? [],
    ...(job.metrics?.owner !== undefined ? { owner: job.metrics.owner } : {}),
    ...(job.runAs?.id !== undefined ? { runAsId: job.runAs.id } : {}),
  };
}

/** A caller may see a job when it is an admin, shares a group with it, started it, or the job has no groups. */
export function canSeeJob(
  job: { groups?: readonly string[]; runAs?: { id: string }; metrics?: { owner?: string } },
  caller: Caller,
): boolean {
  return audienceAdmits(
    {
      groups: [...(job.groups ?? [])],
      ...(job.metrics?.owner !== undefined ? { owner: job.metrics.owner } : {}),
      ...(job.runAs?.id !== undefined ? { runAsId: job.runAs.id } : {}),
    },
    caller,
  );
}

/** The token of {@link jobVisibleTo} that every caller holds: the job has no groups. */
const EVERYONE = '*';

/**
 * Who may see a job, as tokens: `*` when it has no groups, else `group:<id>` for each of its groups,
 * `user:<id>` of its initiator and `owner:<username>` of its owner. A caller sees the job when it
 * holds one of them ({@link callerVisibility}); this is {@link canSeeJob} as one indexed array.
 */
export function jobVisibleTo(job: Pick<JobRecord, 'groups' | 'metrics' | 'runAs'>): string[] {
  const groups = job.groups ?? [];
  if (groups.length === 0) return [EVERYONE];
  const tokens = groups.map((g) => `group:${g}`);
  if (job.runAs?.id !== undefined) tokens.push(`user:${job.runAs.id}`);
  if (typeof job.metrics?.owner === 'string') tokens.push(`owner:${job.metrics.owner}`);
  return [...new Set(tokens)];
}

/** The tokens of {@link jobVisibleTo} a (non-admin) caller holds. */
export function callerVisibility(caller: Caller): string[] {
  return [EVERYONE, ...caller.groups.map((g) => `group:${g}`), `user:${caller.id}`, `owner:${caller.username}`];
}

/**
 * The store filter limiting a job query to what the caller may see (nothing for admins): one `$in`
 * on `visibleTo`, which an index answers (docs/indexes.md).
 */
export function visibilityFilter(caller: Caller): Record<string, unknown> | undefined {
  if (caller.roles.includes('admin') || caller.id === 'system') return undefined;
  return { visibleTo: { $in: callerVisibility(caller) } };
}

/** Throws GROUP_ACCESS_DENIED unless the caller may run a workflow with these groups. */
export function assertMayRun(workflow: Pick<WorkflowDocument, 'name' | 'groups'>, caller: Caller): void {
  const groups = workflow.groups ?? [];
  if (groups.length === 0 || caller.roles.includes('admin') || caller.id === 'system') return;
  if (!groups.some((g) => caller.groups.includes(g))) {
    throw new AppError(
      'GROUP_ACCESS_DENIED',
      `Workflow "${workflow.name}" is shared with groups the caller "${caller.username}" is not in`,
    );
  }
}
