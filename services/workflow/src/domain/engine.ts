import { randomUUID } from 'node:crypto';
import { AppError, RELEASE, SYSTEM_CALLER, eventSubject, getOperation, hasOperation, isAppError, pathParams, validateAgainst } from '@nap/contracts';
import type { Caller, JobErrorEntry, JobEventName, JsonSchema, ServiceName, Task, WorkflowDocument } from '@nap/contracts';
import type { CallInput } from '@nap/bus';
import type { Collection } from '@nap/store';
import type { Logger } from '@nap/telemetry';
import { BUILTINS, MANUAL_BUILTINS, TaskInputError } from './builtins';
import type { BuiltinResult } from './builtins';
import { cloneJson, isPlainObject, needArray } from './builtins/types';
import { END, JobGraph, START } from './graph';
import { newJobId } from './ids';
import type { FinishRequest, JobRecord, ParentLink } from './job-model';
import { copyTasks, toPublicJob } from './job-model';
import { resolveIncoming, resolveOperand, resolveValue } from './references';
import type { ReferenceScope } from './references';

/** Job statuses in which the engine owns and drives the job. */
export const ACTIVE_STATUSES = ['running', 'paused'] as const;

/** The message of the error entry of a job that can go no further. */
export const NO_TRANSITION_MESSAGE = 'No transition available from the completed tasks';

/**
 * Task apps and the service whose catalog operations run them; `WorkFlowEngine` tasks are built in.
 * The task's `name` is the operation name.
 */
export const APP_SERVICES: Readonly<Record<string, ServiceName>> = Object.freeze({
  MOP: 'mop',
  GatewayDevices: 'gateway-devices',
  AutomationGateway: 'gateway-devices',
  AGManager: 'gateway-devices',
  ConfigurationManager: 'gateway-devices',
  OrchManager: 'orch-proxy',
  AutomationStudio: 'studio',
  TemplateBuilder: 'studio',
  JsonForms: 'studio',
  FormBuilder: 'studio',
  AdminEssentials: 'admin',
});

/**
 * Built-in tasks without side effects outside the job, computed synchronously: they run inside the
 * engine's step, so a chain of them costs one store write. Were the engine to die mid-chain, the
 * store still holds the state before the chain and the chain runs again, which changes nothing
 * outside the job.
 */
const INLINE_BUILTINS: ReadonlySet<string> = new Set([
  'newVariable', 'query', 'evaluation', 'merge', 'deepmerge', 'makeData', 'modify', 'setObjectKey', 'push', 'pop',
  'arrayLength', 'arrayPush', 'arrayIncludes', 'arrayIndexOf', 'join', 'split', 'stringConcat', 'stringLength',
  'substring', 'numberToString', 'getTime', 'calculateTimeDiff',
]);

/** Inline tasks per step at most, so that a loop of them never holds the event loop. */
const INLINE_PER_STEP = 64;

const NEVER_ABORTED = new AbortController().signal;

/** Built-in task names that the engine forwards to another service's operation. */
const FORWARDED_BUILTINS: Readonly<Record<string, string>> = Object.freeze({ transformation: 'studio.runTransformation' });

/** What the engine needs from the world; the service wires the bus and the store in. */
export interface EngineDeps {
  jobs: Collection<JobRecord>;
  /** Reads a workflow document by name (or id) as the given caller; WORKFLOW_NOT_FOUND when absent. */
  getWorkflow(name: string, caller: Caller): Promise<WorkflowDocument>;
  /** Calls a catalog operation as the given caller; returns its body, throws AppError. */
  call(operationId: string, input: CallInput, caller: Caller): Promise<unknown>;
  /** Publishes a durable event. */
  publishEvent(subject: string, payload: unknown): Promise<void>;
  /** Tells every engine replica that a job changed in the store (the owner reloads it). */
  broadcastWake(jobId: string): void;
  logger: Logger;
}

export interface EngineOptions {
  /** This engine's id in `metrics.server_id`; random per process unless given. */
  serverId?: string;
  /** A job whose owner has not renewed its claim for this long may be claimed by another engine. */
  leaseMs?: number;
  /** How often an engine renews the claims of its jobs; leaseMs / 3 unless given. */
  renewMs?: number;
  /** How often an engine looks for jobs without a live owner; leaseMs / 2 unless given. */
  scanMs?: number;
}

/** Outcome of a task run, as the runner applies it. */
interface Outcome {
  finishState: 'success' | 'failure' | 'error';
  outgoing: Record<string, unknown>;
  setVariables?: Record<string, unknown>;
  error?: string;
}

interface StartJobInput {
  workflow: WorkflowDocument;
  variables?: Record<string, unknown>;
  description?: string;
  type?: string;
  groups?: string[];
  caller: Caller;
  parent?: { link: ParentLink; ancestors: string[]; groups: string[] };
  jobId?: string;
}

function now(): number {
  return Date.now();
}

function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return typeof err === 'string' ? err : JSON.stringify(err);
}

function isManual(task: Task): boolean {
  return task.type === 'manual' || (task.app === 'WorkFlowEngine' && MANUAL_BUILTINS.has(String(task.name)));
}

/**
 * The workflow engine: creates jobs, runs their tasks where they live, and keeps the job document
 * in the store up to date before and after each task. Each running job is owned by one engine
 * replica (a lease in `metrics.server_id` / `metrics.claim_time`, renewed while the owner lives);
 * a replica that starts, or finds a job whose owner stopped renewing, claims it and resumes it.
 * A task that was in flight when its owner died runs again (at-least-once).
 */
export class JobEngine {
  readonly serverId: string;
  readonly leaseMs: number;
  private readonly renewMs: number;
  private readonly scanMs: number;
  private readonly runners = new Map<string, JobRunner>();
  private readonly schemas = new Map<string, JsonSchema>();
  private timers: NodeJS.Timeout[] = [];
  private stopped = false;

  constructor(
    readonly deps: EngineDeps,
    readonly options: EngineOptions = {},
  ) {
    this.serverId = options.serverId ?? `workflow-${randomUUID()}`;
    this.leaseMs = options.leaseMs ?? 15_000;
    this.renewMs = options.renewMs ?? Math.max(50, Math.floor(this.leaseMs / 3));
    this.scanMs = options.scanMs ?? Math.max(50, Math.floor(this.leaseMs / 2));
  }

  get log(): Logger {
    return this.deps.logger;
  }

  /** Resumes the jobs without a live owner and starts renewing and scanning. */
  async start(): Promise<void> {
    this.stopped = false;
    await this.scan();
    this.timers.push(
      setInterval(() => {
        this.renew().catch((err: unknown) => this.log.warn({ err }, 'Renewing job claims failed'));
      }, this.renewMs),
      setInterval(() => {
        this.scan().catch((err: unknown) => this.log.warn({ err }, 'Looking for jobs to resume failed'));
      }, this.scanMs),
    );
    for (const t of this.timers) t.unref();
  }

  /** Stops every runner and hands its jobs back (claim time cleared) so another replica resumes them at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    const runners = [...this.runners.values()];
    this.runners.clear();
    await Promise.all(runners.map((r) => r.halt()));
    if (runners.length > 0) {
      await this.deps.jobs.updateMany({ 'metrics.server_id': this.serverId, status: { $in: [...ACTIVE_STATUSES] } }, { $set: { 'metrics.claim_time': 0 } });
    }
  }

  /** How many jobs this engine drives now. */
  get ownedJobs(): number {
    return this.runners.size;
  }

  private async renew(): Promise<void> {
    if (this.runners.size === 0) return;
    await this.deps.jobs.updateMany({ 'metrics.server_id': this.serverId, status: { $in: [...ACTIVE_STATUSES] } }, { $set: { 'metrics.claim_time': now() } });
  }

  /** Claims every active job whose lease expired (or that names this engine) and resumes it. */
  async scan(): Promise<void> {
    if (this.stopped) return;
    const expired = now() - this.leaseMs;
    const candidates = await this.deps.jobs.find(
      { status: { $in: [...ACTIVE_STATUSES] }, $or: [{ 'metrics.claim_time': { $lt: expired } }, { 'metrics.server_id': this.serverId }] },
      { projection: { _id: 1 }, limit: 500 },
    );
    for (const { _id } of candidates) {
      if (!this.runners.has(_id)) await this.tryAdopt(_id);
    }
  }

  /** Claims a job when its lease expired (or it is ours) and runs it here. Returns whether this engine owns it now. */
  async tryAdopt(jobId: string): Promise<boolean> {
    if (this.stopped) return false;
    if (this.runners.has(jobId)) return true;
    const t = now();
    const claimed = await this.deps.jobs.findOneAndUpdate(
      {
        _id: jobId,
        status: { $in: [...ACTIVE_STATUSES] },
        $or: [{ 'metrics.claim_time': { $lt: t - this.leaseMs } }, { 'metrics.server_id': this.serverId }, { 'metrics.claim_time': { $exists: false } }],
      },
      { $set: { 'metrics.server_id': this.serverId, 'metrics.claim_time': t } },
      { returnDocument: 'after' },
    );
    if (claimed === null || this.runners.has(jobId)) return this.runners.has(jobId);
    this.log.info({ jobId }, 'Resuming job');
    this.adopt(claimed, true);
    return true;
  }

  /** Runs a job this engine has claimed. */
  adopt(job: JobRecord, resumed: boolean): JobRunner {
    const runner = new JobRunner(this, job);
    this.runners.set(job._id, runner);
    runner.begin(resumed);
    return runner;
  }

  /** A runner ended (job finished, canceled, or claimed elsewhere). */
  release(jobId: string, runner: JobRunner): void {
    if (this.runners.get(jobId) === runner) this.runners.delete(jobId);
  }

  /** Another replica (or a handler) changed the job in the store: its owner reloads it. */
  wake(jobId: string): void {
    const runner = this.runners.get(jobId);
    if (runner) runner.reloadSoon();
  }

  /** Compiles (once per workflow version) and applies the workflow's inputSchema; throws JOB_VARIABLES_INVALID. */
  checkVariables(workflow: WorkflowDocument, variables: Record<string, unknown>): void {
    const schema = workflow.inputSchema;
    if (!isPlainObject(schema) || Object.keys(schema).length === 0) return;
    const key = `${String(workflow._id)}@${String(workflow.last_updated ?? '')}@${JSON.stringify(schema).length}`;
    let compiled = this.schemas.get(key);
    if (compiled === undefined) {
      compiled = cloneJson(schema) as JsonSchema;
      delete compiled.$id;
      delete compiled.$schema;
      this.schemas.set(key, compiled);
      if (this.schemas.size > 500) this.schemas.delete(this.schemas.keys().next().value as string);
    }
    let problems;
    try {
      problems = validateAgainst(compiled, variables, 'variables');
    } catch (err) {
      throw new AppError('WORKFLOW_INVALID', `The inputSchema of workflow "${workflow.name}" is not a usable JSON Schema: ${errorMessage(err)}`);
    }
    if (problems.length > 0) {
      throw new AppError('JOB_VARIABLES_INVALID', `The variables do not match the inputSchema of workflow "${workflow.name}": ${problems.map((p) => p.message).join('; ')}`, { details: problems });
    }
  }

  /** Creates a job from a workflow, stores it claimed by this engine, and runs it. Returns the stored job. */
  async startJob(input: StartJobInput): Promise<JobRecord> {
    const { workflow, caller } = input;
    const given = cloneJson(input.variables ?? {});
    this.checkVariables(workflow, given);
    const tasks = copyTasks(workflow);
    const id = input.jobId ?? newJobId();
    const t = now();
    const iso = new Date(t).toISOString();
    const job: JobRecord = {
      _id: id,
      name: workflow.name,
      description: input.description ?? workflow.description ?? '',
      type: input.type ?? workflow.type ?? 'automation',
      tasks,
      transitions: cloneJson(workflow.transitions ?? {}),
      font_size: typeof workflow.font_size === 'number' ? workflow.font_size : 12,
      created: iso,
      created_by: caller.username,
      last_updated: iso,
      last_updated_by: caller.username,
      groups: input.groups ?? input.parent?.groups ?? (Array.isArray(workflow.groups) ? [...workflow.groups] : []),
      watchers: [caller.username],
      metrics: { owner: caller.username, start_time: t, server_id: this.serverId, claim_time: t, app: { id: 'WorkFlowEngine', version: RELEASE } },
      status: 'running',
      lastUpdatedVersion: RELEASE,
      canvasVersion: typeof workflow.canvasVersion === 'number' ? workflow.canvasVersion : 3,
      decorators: Array.isArray(workflow.decorators) ? cloneJson(workflow.decorators as { type: string; pointer: string }[]) : [],
      ancestors: input.parent ? [...input.parent.ancestors, input.parent.link.job] : [],
      error: [],
      variables: { ...given, _id: id, initiator: caller.username },
      workflow: { ...(workflow._id ? { _id: String(workflow._id) } : {}), name: workflow.name },
      runAs: { id: caller.id, username: caller.username, roles: [...caller.roles], groups: [...caller.groups] },
    };
    if (input.parent) job.parent = input.parent.link;
    await this.deps.jobs.insertOne(job);
    this.emitJob(job, 'jobStart', { by: caller.username });
    // the runner drives its own copy; the caller gets the job as it started
    this.adopt(cloneJson(job), false);
    return job;
  }

  /** Publishes a job-level event (not awaited: ordering is kept per job by the runner's event chain). */
  emitJob(job: JobRecord, event: JobEventName, extra: Record<string, unknown> = {}): void {
    this.publish(job._id, event, jobEventPayload(job, extra));
  }

  private readonly eventChains = new Map<string, Promise<void>>();

  /** Publishes events of one job in order, without making the engine wait for the bus. */
  publish(jobId: string, event: JobEventName, payload: Record<string, unknown>): void {
    const previous = this.eventChains.get(jobId) ?? Promise.resolve();
    const next = previous
      .then(() => this.deps.publishEvent(eventSubject('workflow', 'job', jobId, event), payload))
      .catch((err: unknown) => this.log.warn({ err, jobId, event }, 'Publishing a job event failed'));
    this.eventChains.set(jobId, next);
    void next.then(() => {
      if (this.eventChains.get(jobId) === next) this.eventChains.delete(jobId);
    });
  }

  /** Waits until the events published so far are on the bus (tests, shutdown). */
  async flushEvents(): Promise<void> {
    await Promise.all([...this.eventChains.values()]);
  }

  /** Tells the owner of a job's parent that a child ended. */
  notifyParent(job: JobRecord): void {
    if (!job.parent) return;
    const parentId = job.parent.job;
    if (this.runners.has(parentId)) this.wake(parentId);
    else this.deps.broadcastWake(parentId);
  }

  /** Cancels an active job (and its active children); false when it was not active. */
  async cancelJob(jobId: string, by: string): Promise<boolean> {
    const job = await this.deps.jobs.findOne({ _id: jobId });
    if (job === null || !(ACTIVE_STATUSES as readonly string[]).includes(job.status)) return false;
    const t = now();
    const set: Record<string, unknown> = {
      status: 'canceled',
      'metrics.end_time': t,
      'metrics.run_time': t - (job.metrics?.start_time ?? t),
      'metrics.finish_state': 'canceled',
      last_updated: new Date(t).toISOString(),
      last_updated_by: by,
    };
    for (const [id, task] of Object.entries(job.tasks)) {
      if (task.status === 'running' || task.status === 'pending') {
        set[`tasks.${id}.status`] = 'canceled';
        set[`tasks.${id}.metrics`] = { ...(task.metrics ?? {}), end_time: t, finish_state: 'canceled' };
      }
    }
    const res = await this.deps.jobs.updateOne({ _id: jobId, status: { $in: [...ACTIVE_STATUSES] } }, { $set: set });
    if (res.matchedCount === 0) return false;
    // A step of this job's runner may have written just before the cancel and be about to publish
    // what it did; let it, so that jobCancel is the job's last event.
    await this.runners.get(jobId)?.settled();
    const canceled = { ...job, status: 'canceled' };
    this.emitJob(canceled, 'jobCancel', { by, finishState: 'canceled' });
    this.wake(jobId);
    this.deps.broadcastWake(jobId);
    const children = await this.deps.jobs.find({ 'parent.job': jobId, status: { $in: [...ACTIVE_STATUSES] } }, { projection: { _id: 1 } });
    for (const child of children) await this.cancelJob(child._id, by);
    this.notifyParent(canceled);
    return true;
  }

  /** Pauses a running job: tasks in flight finish, no new task starts. Returns the job after the change. */
  async pauseJob(jobId: string, by: string): Promise<JobRecord> {
    const job = await this.transition(jobId, 'running', 'paused', by);
    this.emitJob(job, 'jobPause', { by });
    return job;
  }

  /** Resumes a paused job. Returns the job after the change. */
  async resumeJob(jobId: string, by: string): Promise<JobRecord> {
    const job = await this.transition(jobId, 'paused', 'running', by);
    this.emitJob(job, 'jobResume', { by });
    if (!(await this.tryAdopt(jobId))) this.deps.broadcastWake(jobId);
    return job;
  }

  private async transition(jobId: string, from: string, to: string, by: string): Promise<JobRecord> {
    const job = await this.deps.jobs.findOneAndUpdate(
      { _id: jobId, status: from },
      { $set: { status: to, last_updated: new Date().toISOString(), last_updated_by: by } },
      { returnDocument: 'after' },
    );
    if (job === null) {
      const current = await this.deps.jobs.findOne({ _id: jobId }, { projection: { status: 1 } });
      if (current === null) throw new AppError('JOB_NOT_FOUND', `No job with id "${jobId}"`);
      throw new AppError('JOB_STATE_CONFLICT', `Job "${jobId}" is ${current.status}, not ${from}`);
    }
    this.wake(jobId);
    this.deps.broadcastWake(jobId);
    return job;
  }

  /**
   * Finishes a waiting manual task with the variables a person supplied (its outgoing);
   * `finish_state` among them chooses success (default) or failure. The owner applies it.
   */
  async finishTask(job: JobRecord, taskId: string, variables: Record<string, unknown>, by: string): Promise<JobRecord> {
    const task = job.tasks[taskId];
    if (task === undefined) throw new AppError('TASK_NOT_FOUND', `Job "${job._id}" has no task "${taskId}"`);
    if (!isManual(task)) throw new AppError('JOB_STATE_CONFLICT', `Task "${taskId}" of job "${job._id}" is not a manual task`);
    const { finish_state: finishState, ...outgoing } = variables;
    if (finishState !== undefined && finishState !== 'success' && finishState !== 'failure') {
      throw new AppError('VALIDATION_FAILED', `variables.finish_state must be success or failure, not ${JSON.stringify(finishState)}`);
    }
    const request: FinishRequest = { variables: outgoing, finishState: finishState ?? 'success', by, at: now() };
    const updated = await this.deps.jobs.findOneAndUpdate(
      { _id: job._id, status: { $in: [...ACTIVE_STATUSES] }, [`tasks.${taskId}.status`]: 'running', [`tasks.${taskId}.finishRequest`]: { $exists: false } },
      { $set: { [`tasks.${taskId}.finishRequest`]: request } },
      { returnDocument: 'after' },
    );
    if (updated === null) throw new AppError('JOB_STATE_CONFLICT', `Task "${taskId}" of job "${job._id}" is not waiting to be finished (task ${String(task.status)}, job ${job.status})`);
    this.wake(job._id);
    this.deps.broadcastWake(job._id);
    return updated;
  }

  /**
   * Runs a task of a job that ended in error again, with replacement incoming variables; the job
   * goes on from there. Returns the job as it restarts.
   */
  async retryTask(jobId: string, taskId: string, variables: Record<string, { value: unknown }>, by: string): Promise<JobRecord> {
    const job = await this.deps.jobs.findOne({ _id: jobId });
    if (job === null) throw new AppError('JOB_NOT_FOUND', `No job with id "${jobId}"`);
    const task = job.tasks[taskId];
    if (task === undefined) throw new AppError('TASK_NOT_FOUND', `Job "${jobId}" has no task "${taskId}"`);
    if (job.status !== 'error') throw new AppError('JOB_STATE_CONFLICT', `Job "${jobId}" is ${job.status}; only a job in error can retry a task`);
    const incoming = { ...(task.variables?.incoming ?? {}) };
    for (const [name, v] of Object.entries(variables)) incoming[name] = v.value;
    const retried: Task = { ...task, status: 'pending', variables: { ...(task.variables ?? {}), incoming, error: '' } };
    delete retried.retryAt;
    if (retried.retrySettings) retried.retrySettings = { ...retried.retrySettings, count: 0 };
    const t = now();
    const updated = await this.deps.jobs.findOneAndUpdate(
      { _id: jobId, status: 'error' },
      {
        $set: { [`tasks.${taskId}`]: retried, status: 'running', error: [], 'metrics.server_id': this.serverId, 'metrics.claim_time': t, last_updated: new Date(t).toISOString(), last_updated_by: by },
        $unset: { 'metrics.end_time': '', 'metrics.finish_state': '', 'metrics.run_time': '' },
      },
      { returnDocument: 'after' },
    );
    if (updated === null) throw new AppError('JOB_STATE_CONFLICT', `Job "${jobId}" changed while its task was being retried; try again`);
    this.emitJob(updated, 'jobResume', { by });
    this.adopt(cloneJson(updated), true);
    return updated;
  }

  /** Resolves the service operation that runs a task, or throws a message naming what is missing. */
  operationFor(task: Task): string {
    const app = String(task.app ?? '');
    const name = String(task.name ?? '');
    if (app === 'WorkFlowEngine') {
      const forwarded = FORWARDED_BUILTINS[name];
      if (forwarded) return forwarded;
      throw new TaskInputError(`WorkFlowEngine has no built-in task "${name}"`);
    }
    const service = APP_SERVICES[app];
    if (service === undefined) throw new TaskInputError(`No service of this platform runs tasks of app "${app}"`);
    const id = `${service}.${name}`;
    if (!hasOperation(id)) throw new TaskInputError(`App "${app}" (service ${service}) has no operation "${name}"`);
    return id;
  }
}

/** The payload of a job-level event. */
function jobEventPayload(job: JobRecord, extra: Record<string, unknown>): Record<string, unknown> {
  return { jobId: job._id, name: job.name, status: job.status, timestamp: now(), ...extra };
}

/** The input of a catalog call made from a task's resolved incoming variables. */
export function callInputFor(operationId: string, incoming: Record<string, unknown>): CallInput {
  const op = getOperation(operationId);
  if (operationId === 'studio.runTransformation') {
    return { params: { transformationId: String(incoming.tr_id ?? '') }, body: { incoming: isPlainObject(incoming.variableMap) ? incoming.variableMap : {}, options: isPlainObject(incoming.options) ? incoming.options : {} } };
  }
  const params: Record<string, string> = {};
  const rest: Record<string, unknown> = { ...incoming };
  for (const p of op.http ? pathParams(op.http.path) : []) {
    if (rest[p] !== undefined) {
      params[p] = String(rest[p]);
      delete rest[p];
    }
  }
  const method = op.http?.method;
  if (method === 'GET' || method === 'DELETE') return { params, query: rest };
  return { params, body: rest };
}

/** Outgoing variables from an operation's answer: members of the answer by name, or the whole answer under the only name. */
export function outgoingFrom(names: string[], body: unknown): Record<string, unknown> {
  if (names.length === 0) return {};
  if (isPlainObject(body) && names.every((n) => Object.hasOwn(body, n))) return Object.fromEntries(names.map((n) => [n, body[n]]));
  if (names.length === 1) return { [names[0] as string]: body ?? null };
  return Object.fromEntries(names.map((n) => [n, isPlainObject(body) && Object.hasOwn(body, n) ? body[n] : null]));
}

interface ChildRun {
  workflow: string;
  sequential: boolean;
  single: boolean;
  inputs: Record<string, unknown>[];
}

/**
 * Drives one job on its owning engine. All changes to the job happen in serialized steps; each step
 * ends by starting the tasks that became ready, writing the changed parts of the job in one store
 * update (only while this engine still owns the job and it is active) and then launching the
 * started tasks, so the store says a task runs before it does.
 */
export class JobRunner {
  job: JobRecord;
  private graph: JobGraph;
  private chain: Promise<void> = Promise.resolve();
  private stopped = false;
  private reloadQueued = false;
  private readonly tokens = new Map<string, symbol>();
  private readonly aborts = new Map<string, AbortController>();
  private readonly dirtyTasks = new Set<string>();
  private readonly dirtyFields = new Set<string>();
  private toLaunch: (() => void)[] = [];
  private finished = false;
  private inlineBudget = INLINE_PER_STEP;
  /** Events of the current step, published once its store write is done (subscribers then read what they were told). */
  private events: [JobEventName, Record<string, unknown>][] = [];

  constructor(
    private readonly engine: JobEngine,
    job: JobRecord,
  ) {
    this.job = job;
    this.graph = new JobGraph(job.tasks, job.transitions);
  }

  private get jobs(): Collection<JobRecord> {
    return this.engine.deps.jobs;
  }

  /** Starts driving: a new job starts at workflow_start; a resumed one re-runs its in-flight tasks. */
  begin(resumed: boolean): void {
    void this.step(() => {
      if (!resumed) {
        this.activate(START);
        return;
      }
      for (const [id, task] of Object.entries(this.job.tasks)) {
        if (task.status === 'pending' && typeof task.retryAt === 'number') this.retryTimer(id, Math.max(0, task.retryAt - now()));
        if (task.status !== 'running') continue;
        if (task.name === 'forEach' && isPlainObject(task.loop)) continue;
        if (task.name === 'childJob' && isPlainObject(task.childRun)) {
          this.spawnChildren(id);
          continue;
        }
        if (isManual(task)) continue;
        // at-least-once: the task was in flight when its previous owner stopped
        task.status = 'pending';
        this.markTask(id);
      }
      this.processRequests();
      this.checkChildrenSoon();
    });
  }

  /** Stops the runner without touching the store (shutdown, lost claim). */
  async halt(): Promise<void> {
    this.stopped = true;
    for (const a of this.aborts.values()) a.abort();
    this.aborts.clear();
    await this.chain;
  }

  /** Reloads the job from the store in the next step (coalesced). */
  reloadSoon(): void {
    if (this.reloadQueued || this.stopped) return;
    this.reloadQueued = true;
    void this.step(async () => {
      this.reloadQueued = false;
      await this.reload();
    });
  }

  private async reload(): Promise<void> {
    const fresh = await this.jobs.findOne({ _id: this.job._id });
    if (fresh === null) {
      this.stop();
      return;
    }
    this.job = fresh;
    this.graph = new JobGraph(fresh.tasks, fresh.transitions);
    if (!(ACTIVE_STATUSES as readonly string[]).includes(fresh.status) || fresh.metrics?.server_id !== this.engine.serverId) {
      this.stop();
      return;
    }
    this.processRequests();
    this.checkChildrenSoon();
  }

  private stop(): void {
    this.stopped = true;
    for (const a of this.aborts.values()) a.abort();
    this.aborts.clear();
    this.engine.release(this.job._id, this);
  }

  /** Resolves once the step in progress (if any) has written and published. */
  settled(): Promise<void> {
    return this.chain.then(
      () => undefined,
      () => undefined,
    );
  }

  /** Runs `fn` as one serialized step, then schedules, writes and launches. */
  private step(fn: () => void | Promise<void>): Promise<void> {
    const next = this.chain.then(async () => {
      if (this.stopped) return;
      this.inlineBudget = INLINE_PER_STEP;
      try {
        await fn();
        if (this.stopped) return;
        this.schedule();
        await this.flush();
        if (this.stopped) return;
        for (const [event, payload] of this.events.splice(0)) this.engine.publish(this.job._id, event, payload);
        const launches = this.toLaunch;
        this.toLaunch = [];
        for (const launch of launches) launch();
        if (this.finished) this.stop();
      } catch (err) {
        this.engine.log.error({ err, jobId: this.job._id }, 'Job step failed; the job is reloaded from the store');
        this.toLaunch = [];
        this.events = [];
        this.dirtyTasks.clear();
        this.dirtyFields.clear();
        try {
          await this.reload();
        } catch {
          this.stop();
        }
      }
    });
    this.chain = next;
    return next;
  }

  private markTask(id: string): void {
    this.dirtyTasks.add(id);
  }

  private markField(field: string): void {
    this.dirtyFields.add(field);
  }

  private scope(): ReferenceScope {
    return { variables: this.job.variables, tasks: this.job.tasks };
  }

  private async flush(): Promise<void> {
    if (this.dirtyTasks.size === 0 && this.dirtyFields.size === 0) return;
    const set: Record<string, unknown> = {};
    for (const id of this.dirtyTasks) set[`tasks.${id}`] = this.job.tasks[id];
    for (const field of this.dirtyFields) set[field] = (this.job as Record<string, unknown>)[field];
    this.job.last_updated = new Date().toISOString();
    set.last_updated = this.job.last_updated;
    this.dirtyTasks.clear();
    this.dirtyFields.clear();
    const res = await this.jobs.updateOne({ _id: this.job._id, 'metrics.server_id': this.engine.serverId, status: { $in: [...ACTIVE_STATUSES] } }, { $set: set });
    if (res.matchedCount === 0) {
      // canceled, or claimed by another engine: what we did is dropped
      this.toLaunch = [];
      this.events = [];
      await this.reload();
      if (!this.stopped) this.stop();
    }
  }

  private activate(id: string): void {
    const task = this.job.tasks[id];
    if (task === undefined || task.status === 'running') return;
    task.status = 'pending';
    this.markTask(id);
  }

  private isFailing(): boolean {
    return this.job.error.length > 0;
  }

  /** Starts every pending task whose join is satisfied; advances loops; ends the job when nothing is left. */
  private schedule(): void {
    if (this.finished) return;
    for (let guard = 0; guard < 10_000; guard += 1) {
      let progressed = false;
      if (this.job.status === 'running' && !this.isFailing()) {
        for (const id of this.readyTasks()) {
          this.startTask(id);
          progressed = true;
          if (this.finished) return;
        }
      }
      if (this.advanceLoops()) progressed = true;
      if (!progressed) break;
    }
    this.checkEnd();
  }

  private active(): { running: string[]; pending: string[] } {
    const running: string[] = [];
    const pending: string[] = [];
    for (const [id, task] of Object.entries(this.job.tasks)) {
      if (task.status === 'running') running.push(id);
      else if (task.status === 'pending') pending.push(id);
    }
    return { running, pending };
  }

  private readyTasks(): string[] {
    const { running, pending: all } = this.active();
    const t = now();
    const pending = all.filter((id) => {
      const retryAt = this.job.tasks[id]?.retryAt;
      return typeof retryAt !== 'number' || retryAt <= t;
    });
    if (pending.length === 0) return [];
    const blockers = [...running, ...pending];
    const ready = pending.filter((id) => !blockers.some((other) => other !== id && this.blocks(other, id)));
    // a cycle of pending tasks waiting for each other, nothing in flight: let them all go
    if (ready.length === 0 && running.length === 0) return pending;
    return ready;
  }

  /** True when `other` (running or pending) may still reach `target`, so a join at `target` waits for it. */
  private blocks(other: string, target: string): boolean {
    if (!this.graph.reachable(other).has(target)) return false;
    const task = this.job.tasks[other];
    // a running forEach does not block the tasks of its own body
    if (task?.name === 'forEach' && this.graph.body(other).has(target)) return false;
    return true;
  }

  private startTask(id: string): void {
    const task = this.job.tasks[id] as Task;
    const t = now();
    task.status = 'running';
    task.metrics = { start_time: t, server_id: this.engine.serverId };
    delete task.finishRequest;
    if (task.variables) task.variables.error = '';
    this.markTask(id);
    if (id === START) {
      this.complete(id, { finishState: 'success', outgoing: {} });
      return;
    }
    if (id === END) {
      this.completeTaskRecord(id, 'success', {});
      this.finishJob('complete');
      return;
    }
    this.emitTask('taskStart', id);
    let incoming: Record<string, unknown>;
    try {
      incoming = resolveIncoming(task.variables?.incoming, this.scope());
    } catch (err) {
      this.complete(id, { finishState: 'error', outgoing: {}, error: errorMessage(err) });
      return;
    }
    if (isManual(task)) {
      if (task.variables) task.variables.resolved = incoming;
      return;
    }
    if (task.app === 'WorkFlowEngine' && task.name === 'forEach') {
      this.startLoop(id, incoming);
      return;
    }
    if (task.app === 'WorkFlowEngine' && task.name === 'childJob') {
      this.startChildren(id, incoming);
      return;
    }
    if (task.app === 'WorkFlowEngine' && INLINE_BUILTINS.has(String(task.name)) && this.inlineBudget > 0) {
      this.inlineBudget -= 1;
      this.runInline(id, task, incoming);
      return;
    }
    this.launch(id, incoming);
  }

  /** Runs a side-effect-free built-in within the step (see INLINE_BUILTINS). */
  private runInline(id: string, task: Task, incoming: Record<string, unknown>): void {
    const startedAt = task.metrics?.start_time ?? now();
    let outcome: Outcome;
    try {
      const builtin = BUILTINS[String(task.name)] as (typeof BUILTINS)[string];
      outcome = builtin({ incoming, scope: this.scope(), startedAt, signal: NEVER_ABORTED }) as BuiltinResult;
    } catch (err) {
      outcome = { finishState: 'error', outgoing: {}, error: errorMessage(err) };
    }
    if (this.retryIfAsked(id, task, outcome)) return;
    this.complete(id, outcome);
  }

  /** Queues the execution of a task to begin after the step's store write. */
  private launch(id: string, incoming: Record<string, unknown>): void {
    const token = Symbol(id);
    this.tokens.set(id, token);
    const task = this.job.tasks[id] as Task;
    const startedAt = task.metrics?.start_time ?? now();
    const scope: ReferenceScope = { variables: cloneJson(this.job.variables), tasks: this.job.tasks };
    this.toLaunch.push(() => {
      const abort = new AbortController();
      this.aborts.set(id, abort);
      this.execute(task, incoming, scope, startedAt, abort.signal)
        .then((outcome) => {
          if (this.aborts.get(id) === abort) this.aborts.delete(id);
          void this.step(() => this.onOutcome(id, token, outcome));
        })
        .catch((err: unknown) => this.engine.log.error({ err, jobId: this.job._id, taskId: id }, 'Task execution failed unexpectedly'));
    });
  }

  private async execute(task: Task, incoming: Record<string, unknown>, scope: ReferenceScope, startedAt: number, signal: AbortSignal): Promise<Outcome> {
    try {
      const name = String(task.name ?? '');
      if (task.app === 'WorkFlowEngine' && Object.hasOwn(BUILTINS, name)) {
        const builtin = BUILTINS[name] as (typeof BUILTINS)[string];
        const result: BuiltinResult = await builtin({ incoming, scope, startedAt, signal });
        return result;
      }
      const operationId = this.engine.operationFor(task);
      const caller = this.job.runAs ?? SYSTEM_CALLER;
      const body = await this.engine.deps.call(operationId, callInputFor(operationId, incoming), caller);
      return { finishState: 'success', outgoing: outgoingFrom(Object.keys(task.variables?.outgoing ?? {}), body) };
    } catch (err) {
      if (signal.aborted) return { finishState: 'error', outgoing: {}, error: 'The task was stopped' };
      const message = isAppError(err) ? `${err.code}: ${err.message}` : errorMessage(err);
      return { finishState: 'error', outgoing: {}, error: message };
    }
  }

  private onOutcome(id: string, token: symbol, outcome: Outcome): void {
    const task = this.job.tasks[id];
    if (task === undefined || this.tokens.get(id) !== token || task.status !== 'running') return;
    this.tokens.delete(id);
    if (this.retryIfAsked(id, task, outcome)) return;
    this.complete(id, outcome);
  }

  /** Automatic retry by retrySettings: the task runs again after `delay` ms while `count` < `limit`. */
  private retryIfAsked(id: string, task: Task, outcome: Outcome): boolean {
    const settings = task.retrySettings;
    if (!settings?.autoRetry) return false;
    const states = Array.isArray(settings.state) && settings.state.length > 0 ? settings.state : ['error'];
    const count = settings.count ?? 0;
    if (!states.includes(outcome.finishState) || count >= (settings.limit ?? 0)) return false;
    settings.count = count + 1;
    task.status = 'pending';
    task.retryAt = now() + Math.max(0, settings.delay ?? 0);
    if (outcome.error !== undefined && task.variables) task.variables.error = outcome.error;
    this.markTask(id);
    this.retryTimer(id, Math.max(0, settings.delay ?? 0));
    return true;
  }

  /** Wakes the runner when a task waiting for its automatic retry is due. */
  private retryTimer(id: string, waitMs: number): void {
    const timer = setTimeout(() => {
      void this.step(() => {
        const current = this.job.tasks[id];
        if (current?.status === 'pending' && current.retryAt !== undefined) {
          delete current.retryAt;
          this.markTask(id);
        }
      });
    }, waitMs);
    timer.unref();
  }

  private completeTaskRecord(id: string, finishState: Outcome['finishState'], outgoing: Record<string, unknown>, error?: string): void {
    const task = this.job.tasks[id] as Task;
    const t = now();
    const start = task.metrics?.start_time ?? t;
    task.status = finishState === 'error' ? 'error' : 'complete';
    task.metrics = { ...(task.metrics ?? {}), start_time: start, end_time: t, run_time: t - start, finish_state: finishState, server_id: this.engine.serverId };
    const variables = (task.variables ??= {});
    variables.outgoing = { ...(variables.outgoing ?? {}), ...outgoing };
    if (error !== undefined) variables.error = error;
    const writes = task.writes as { outgoing?: Record<string, string>; error?: string } | undefined;
    if (writes?.outgoing) {
      for (const [name, jobVariable] of Object.entries(writes.outgoing)) {
        if (Object.hasOwn(outgoing, name)) this.setVariable(jobVariable, outgoing[name]);
      }
    }
    if (writes?.error && error !== undefined) this.setVariable(writes.error, error);
    this.markTask(id);
  }

  private setVariable(name: string, value: unknown): void {
    this.job.variables[name] = value;
    this.markField('variables');
  }

  /** Records a finished task and takes its transitions. */
  private complete(id: string, outcome: Outcome): void {
    const task = this.job.tasks[id] as Task;
    this.completeTaskRecord(id, outcome.finishState, outcome.outgoing, outcome.error);
    for (const [name, value] of Object.entries(outcome.setVariables ?? {})) this.setVariable(name, value);
    if (id !== START) this.emitTask('taskFinish', id, outcome.finishState);
    const targets = this.graph.next(id, outcome.finishState);
    for (const to of targets) this.activate(to);
    if (targets.length === 0) this.deadEnd(id, outcome.finishState, task);
  }

  /** A task took no transition: the end of a loop iteration, or the job can go no further. */
  private deadEnd(id: string, state: string, task: Task): void {
    if (id === END) return;
    const inLoop = this.graph.loopsOf(id).some((loop) => this.job.tasks[loop]?.status === 'running');
    if (inLoop && state !== 'error') return;
    this.addError(id, NO_TRANSITION_MESSAGE);
    if (task.status === 'error') this.engine.log.debug({ jobId: this.job._id, taskId: id }, 'Task error without an error transition');
  }

  private addError(task: string, message: string): void {
    const entry: JobErrorEntry = { task, message, timestamp: now() };
    this.job.error = [...this.job.error, entry];
    this.markField('error');
  }

  /** Ends the job when nothing runs or waits: complete was handled at workflow_end, so this is an error. */
  private checkEnd(): void {
    if (this.finished || this.job.status !== 'running') return;
    const { running, pending } = this.active();
    if (this.isFailing()) {
      // stop once no automatic task is still in flight; waiting manual tasks and child jobs are canceled
      const inFlight = running.filter((id) => this.tokens.has(id));
      if (inFlight.length === 0) this.finishJob('error');
      return;
    }
    if (running.length === 0 && pending.length === 0) {
      const last = this.lastFinished();
      this.addError(last, NO_TRANSITION_MESSAGE);
      this.finishJob('error');
    }
  }

  private lastFinished(): string {
    let best = START;
    let bestTime = -1;
    for (const [id, task] of Object.entries(this.job.tasks)) {
      const end = task.metrics?.end_time ?? -1;
      if (end >= bestTime && (task.status === 'complete' || task.status === 'error')) {
        best = id;
        bestTime = end;
      }
    }
    return best;
  }

  private finishJob(status: 'complete' | 'error'): void {
    const t = now();
    for (const [id, task] of Object.entries(this.job.tasks)) {
      if (task.status === 'running' && id !== END) {
        task.status = 'canceled';
        task.metrics = { ...(task.metrics ?? {}), end_time: t, finish_state: 'canceled' };
        this.markTask(id);
        this.aborts.get(id)?.abort();
        this.tokens.delete(id);
      }
    }
    this.job.status = status;
    this.job.metrics = { ...(this.job.metrics ?? {}), end_time: t, run_time: t - (this.job.metrics?.start_time ?? t), finish_state: status };
    this.markField('status');
    this.markField('metrics');
    this.finished = true;
    if (status === 'complete') this.events.push(['jobComplete', jobEventPayload(this.job, { finishState: 'complete' })]);
    else this.events.push(['jobError', jobEventPayload(this.job, { finishState: 'error', error: this.job.error })]);
    const job = this.job;
    this.toLaunch.push(() => this.engine.notifyParent(job));
  }

  private emitTask(event: 'taskStart' | 'taskFinish', id: string, finishState?: string): void {
    const task = this.job.tasks[id] as Task;
    this.events.push([event, {
      jobId: this.job._id,
      name: this.job.name,
      status: this.job.status,
      timestamp: now(),
      taskId: id,
      taskName: String(task.name ?? id),
      taskStatus: String(task.status),
      ...(finishState ? { finishState } : {}),
    }]);
  }

  // ---- manual tasks -------------------------------------------------------------------------

  /** Applies the answers that finishTask left on waiting manual tasks. */
  private processRequests(): void {
    for (const [id, task] of Object.entries(this.job.tasks)) {
      const request = task.finishRequest as FinishRequest | undefined;
      if (task.status !== 'running' || request === undefined) continue;
      delete task.finishRequest;
      this.complete(id, { finishState: request.finishState, outgoing: request.variables });
    }
  }

  // ---- forEach -----------------------------------------------------------------------------

  private startLoop(id: string, incoming: Record<string, unknown>): void {
    let items: unknown[];
    try {
      items = incoming.data_array === '' || incoming.data_array === null || incoming.data_array === undefined ? [] : needArray(incoming.data_array, 'data_array');
    } catch (err) {
      this.complete(id, { finishState: 'error', outgoing: {}, error: errorMessage(err) });
      return;
    }
    const task = this.job.tasks[id] as Task;
    if (items.length === 0 || this.graph.next(id, 'loop').length === 0) {
      delete task.loop;
      this.complete(id, { finishState: 'success', outgoing: { current_item: null } });
      return;
    }
    task.loop = { items, index: 0 };
    this.beginIteration(id);
  }

  private beginIteration(id: string): void {
    const task = this.job.tasks[id] as Task;
    const loop = task.loop as { items: unknown[]; index: number };
    const item = loop.items[loop.index];
    for (const member of this.graph.body(id)) {
      const bodyTask = this.job.tasks[member];
      if (bodyTask && bodyTask.status !== 'incomplete') {
        bodyTask.status = 'incomplete';
        this.markTask(member);
      }
    }
    const variables = (task.variables ??= {});
    variables.outgoing = { ...(variables.outgoing ?? {}), current_item: item };
    const target = (task.writes as { outgoing?: Record<string, string> } | undefined)?.outgoing?.current_item;
    if (target !== undefined) this.setVariable(target, item);
    task.iterations = [...(task.iterations ?? []), String(loop.index)];
    this.markTask(id);
    for (const to of this.graph.next(id, 'loop')) this.activate(to);
  }

  /** Moves every forEach whose body has nothing left to its next item, or past its last one. */
  private advanceLoops(): boolean {
    if (this.isFailing()) return false;
    let progressed = false;
    for (const [id, task] of Object.entries(this.job.tasks)) {
      if (task.status !== 'running' || task.name !== 'forEach' || !isPlainObject(task.loop)) continue;
      const body = this.graph.body(id);
      const busy = [...body].some((member) => {
        const status = this.job.tasks[member]?.status;
        return status === 'running' || status === 'pending';
      });
      if (busy) continue;
      const loop = task.loop as { items: unknown[]; index: number };
      if (this.job.status !== 'running') continue;
      if (loop.index + 1 < loop.items.length) {
        loop.index += 1;
        this.beginIteration(id);
      } else {
        delete task.loop;
        this.complete(id, { finishState: 'success', outgoing: { current_item: loop.items[loop.index] ?? null } });
      }
      progressed = true;
    }
    return progressed;
  }

  // ---- childJob ----------------------------------------------------------------------------

  private startChildren(id: string, incoming: Record<string, unknown>): void {
    const task = this.job.tasks[id] as Task;
    try {
      const workflow = typeof incoming.workflow === 'string' ? incoming.workflow.trim() : '';
      if (workflow === '') throw new TaskInputError('Incoming "workflow" of childJob must name a workflow');
      const raw = (task.variables?.incoming ?? {}).variables;
      const given = isPlainObject(raw) ? raw : isPlainObject(incoming.variables) ? incoming.variables : {};
      const base: Record<string, unknown> = {};
      for (const [name, operand] of Object.entries(given)) base[name] = resolveOperand(operand, this.scope());
      const dataArray = incoming.data_array;
      const looped = Array.isArray(dataArray) || (typeof dataArray === 'string' && dataArray !== '');
      let inputs: Record<string, unknown>[];
      if (looped) {
        const items = needArray(dataArray, 'data_array');
        inputs = items.map((item) => ({ ...base, ...(isPlainObject(item) ? item : { item }) }));
      } else {
        inputs = [base];
      }
      const run: ChildRun = { workflow, sequential: incoming.loopType === 'sequential', single: !looped, inputs };
      if (inputs.length === 0) {
        this.complete(id, { finishState: 'success', outgoing: { job_details: [] } });
        return;
      }
      task.childRun = run;
      task.childJobs = inputs.map((_, iteration) => ({ _id: newJobId(), name: workflow, iteration }));
      this.markTask(id);
      this.toLaunch.push(() => this.spawnChildren(id));
    } catch (err) {
      this.complete(id, { finishState: 'error', outgoing: {}, error: errorMessage(err) });
    }
  }

  /** Creates the child jobs of a childJob task that should run now and do not exist yet. */
  private spawnChildren(id: string): void {
    const task = this.job.tasks[id] as Task;
    const run = task.childRun as ChildRun | undefined;
    const planned = task.childJobs ?? [];
    if (!run || planned.length === 0) return;
    const parentJob = this.job;
    void (async () => {
      try {
        const existing = new Map((await this.jobs.find({ _id: { $in: planned.map((c) => c._id) } }, { projection: { _id: 1, status: 1 } })).map((j) => [j._id, j.status]));
        const caller = parentJob.runAs ?? SYSTEM_CALLER;
        let workflow: WorkflowDocument | undefined;
        for (const child of planned) {
          if (existing.has(child._id)) {
            if (run.sequential && existing.get(child._id) !== 'complete') break;
            continue;
          }
          workflow ??= await this.engine.deps.getWorkflow(run.workflow, caller);
          await this.engine.startJob({
            workflow,
            variables: run.inputs[child.iteration ?? 0] ?? {},
            caller,
            jobId: child._id,
            parent: { link: { job: parentJob._id, task: id, iteration: child.iteration ?? 0 }, ancestors: parentJob.ancestors ?? [], groups: parentJob.groups ?? [] },
          });
          if (run.sequential) break;
        }
      } catch (err) {
        void this.step(() => {
          const current = this.job.tasks[id];
          if (current?.status !== 'running') return;
          this.complete(id, { finishState: 'error', outgoing: { job_details: null }, error: `Child job of workflow "${run.workflow}" could not start: ${errorMessage(err)}` });
        });
      }
    })();
  }

  private checkChildrenSoon(): void {
    const waiting = Object.entries(this.job.tasks).filter(([, t]) => t.status === 'running' && t.name === 'childJob' && isPlainObject(t.childRun));
    if (waiting.length === 0) return;
    this.toLaunch.push(() => {
      void this.step(async () => {
        for (const [id] of waiting) await this.checkChildren(id);
      });
    });
  }

  /** Finishes a childJob task when its children ended, or starts the next one of a sequential loop. */
  private async checkChildren(id: string): Promise<void> {
    const task = this.job.tasks[id];
    const run = task?.childRun as ChildRun | undefined;
    if (!task || task.status !== 'running' || !run) return;
    const planned = task.childJobs ?? [];
    const docs = await this.jobs.find({ _id: { $in: planned.map((c) => c._id) } }, { projection: { _id: 1, name: 1, status: 1, variables: 1, error: 1 } });
    const byId = new Map(docs.map((d) => [d._id, d]));
    const ended = (status: string | undefined) => status === 'complete' || status === 'error' || status === 'canceled';
    const details = planned.map((c) => {
      const doc = byId.get(c._id);
      return doc ? { _id: doc._id, name: doc.name, status: doc.status, variables: doc.variables, ...(doc.error?.length ? { error: doc.error } : {}) } : { _id: c._id, name: c.name, status: 'incomplete' };
    });
    const failed = details.some((d) => d.status === 'error' || d.status === 'canceled');
    const allEnded = details.every((d) => ended(d.status));
    if (run.sequential && !failed && !allEnded) {
      const next = details.findIndex((d) => !ended(d.status));
      if (next >= 0 && !byId.has(planned[next]?._id ?? '')) this.toLaunch.push(() => this.spawnChildren(id));
      return;
    }
    if (!allEnded && !(run.sequential && failed)) return;
    delete task.childRun;
    const jobDetails = run.single ? (details[0] ?? null) : details;
    if (failed) {
      const bad = details.find((d) => d.status === 'error' || d.status === 'canceled');
      this.complete(id, { finishState: 'error', outgoing: { job_details: jobDetails }, error: `Child job ${bad?._id ?? ''} of workflow "${run.workflow}" ended with status ${bad?.status ?? 'error'}` });
    } else {
      this.complete(id, { finishState: 'success', outgoing: { job_details: jobDetails } });
    }
  }

  /** Public door for a wake about children (same as a reload). */
  childrenChanged(): void {
    this.reloadSoon();
  }
}

export { toPublicJob };
export { resolveValue };
