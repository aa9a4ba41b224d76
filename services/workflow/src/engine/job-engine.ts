import { randomUUID } from 'node:crypto';
import type { Caller, JobEventName, WorkflowDocument } from '@nap/contracts';
import type { CallInput } from '@nap/bus';
import type { Collection } from '@nap/store';
import type { Logger } from '@nap/telemetry';
import type { JobRecord } from '../domain/job-model';
import { EngineRegistry } from '../store/engine-registry';
import type { EngineRecord } from '../store/engine-registry';
import { JobRepository } from '../store/job-repository';
import type { OutboxState } from '../store/job-repository';
import { InputSchemaCache } from './input-schemas';
import { JobEventRelay } from './job-events';
import type { PublishEvent } from './job-events';
import { JobLifecycle } from './job-lifecycle';
import type { LifecycleHost, StartJobInput } from './job-lifecycle';
import { JobRunner } from './job-runner';
import type { RunnerHost } from './job-runner';
import { LeaseManager } from './lease-manager';
import type { JobOwner } from './lease-manager';

/** What the engine needs from the world; the service wires the bus and the store in. */
export interface EngineDeps {
  jobs: Collection<JobRecord>;
  /** One heartbeat document per engine process (see {@link EngineRegistry}). */
  engines: Collection<EngineRecord>;
  /**
   * Reads a workflow document by name as the given caller; WORKFLOW_NOT_FOUND when absent. `from` is
   * the workflow whose childJob task names it (a plain name from a project member means that
   * project's member first: studio's rule).
   */
  getWorkflow(name: string, caller: Caller, from?: string): Promise<WorkflowDocument>;
  /** Calls a catalog operation named at run time (a task's app and name) as the given caller; returns its body, throws AppError. */
  call(operationId: string, input: CallInput, caller: Caller): Promise<unknown>;
  /** Publishes a durable event (resolves once the bus stored it). */
  publishEvent: PublishEvent;
  /** False while the bus is known to be down: events wait in their outbox. Always up when absent. */
  busConnected?(): boolean;
  /** Tells every engine replica that a job changed in the store (the owner reloads it). */
  broadcastWake(jobId: string): void;
  logger: Logger;
  /** Sees every event of a job with the job as it is then (the service's metrics). */
  observe?: (event: JobEventName, job: JobRecord, payload: Record<string, unknown>) => void;
}

/** Lease defaults: a dead engine's jobs are taken over within about lease + scan (4 s). */
export const DEFAULT_LEASE_MS = 3_000;

export interface EngineOptions {
  /** This engine's id in `lease` and `metrics.server_id`; random per process unless given. A restart under the same id resumes its jobs at once. */
  serverId?: string;
  /** An engine whose heartbeat has not moved for this long is dead; its jobs are taken over. Default {@link DEFAULT_LEASE_MS}. */
  leaseMs?: number;
  /** How often an engine renews its heartbeat; leaseMs / 3 unless given. */
  renewMs?: number;
  /** How often an engine looks for dead engines; leaseMs / 3 unless given. */
  scanMs?: number;
  /** How long a task's call that no service answers (SERVICE_UNAVAILABLE) is tried again before the task fails; 60 s unless given. */
  unavailableRetryMs?: number;
  /**
   * How many times faster than real time `delay` (and `stub` delay) waits pass: 1 (default) is real
   * time; tests run the fixtures' 400 s delays on a scaled clock (NAP_TIME_SCALE), as Temporal's
   * time-skipping test environment does.
   */
  timeScale?: number;
}

/**
 * The workflow engine: creates jobs, runs their tasks where they live, and keeps the job document
 * in the store up to date before and after each task, its events written with it (an outbox) and
 * published afterwards. Each job with work for an engine is leased to one engine replica (`lease`,
 * and `metrics.server_id` while active), whose heartbeat says it lives; a replica that starts, or
 * finds an engine whose heartbeat stopped, takes its jobs over and resumes them. A task that was in
 * flight when its engine died runs again (at-least-once).
 *
 * This class wires the parts together and keeps the runners of the jobs it owns: the lease manager,
 * the job lifecycle (what callers ask for), the runners (one per job) and the event relay.
 */
export class JobEngine implements RunnerHost, LifecycleHost, JobOwner {
  readonly serverId: string;
  readonly leaseMs: number;
  readonly renewMs: number;
  readonly scanMs: number;
  readonly unavailableRetryMs: number;
  readonly timeScale: number;
  readonly repository: JobRepository;
  readonly events: JobEventRelay;
  readonly schemas = new InputSchemaCache();
  private readonly lease: LeaseManager;
  private readonly lifecycle: JobLifecycle;
  private readonly runners = new Map<string, JobRunner>();
  private workers = { jobWorker: true, taskWorker: true };
  /** Jobs being created here: stored, their runner not registered yet. */
  private readonly starting = new Set<string>();

  constructor(
    readonly deps: EngineDeps,
    readonly options: EngineOptions = {},
  ) {
    this.serverId = options.serverId ?? `workflow-${randomUUID()}`;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.renewMs = options.renewMs ?? Math.max(20, Math.floor(this.leaseMs / 3));
    this.scanMs = options.scanMs ?? Math.max(20, Math.floor(this.leaseMs / 3));
    this.unavailableRetryMs = options.unavailableRetryMs ?? 60_000;
    this.timeScale = options.timeScale ?? 1;
    this.repository = new JobRepository(deps.jobs);
    const connected = deps.busConnected?.bind(deps) ?? (() => true);
    this.events = new JobEventRelay(this.repository, { publish: deps.publishEvent, connected }, deps.logger);
    const timing = { leaseMs: this.leaseMs, renewMs: this.renewMs, scanMs: this.scanMs };
    this.lease = new LeaseManager(this.serverId, timing, this.repository, new EngineRegistry(deps.engines), this, deps.logger);
    this.lifecycle = new JobLifecycle(this);
  }

  get log(): Logger {
    return this.deps.logger;
  }

  // ---- lifetime -------------------------------------------------------------------------------

  /** Registers this engine, resumes its own jobs and those of dead engines, and starts renewing and scanning. */
  async start(): Promise<void> {
    await this.lease.start();
  }

  /**
   * Stops every runner, gives the relay `drainMs` to publish what is pending, and says this engine
   * stopped, so that another replica takes its jobs (and what is left in their outboxes) over at once.
   */
  async stop(drainMs = 2_000): Promise<void> {
    this.lease.stopTimers();
    const runners = [...this.runners.values()];
    this.runners.clear();
    await Promise.all(runners.map((r) => r.halt()));
    await this.events.idle(drainMs);
    this.events.stop();
    await this.lease.handBack();
  }

  /** Waits until the events written so far are on the bus (tests; bounded by `timeoutMs` when given). */
  async flushEvents(timeoutMs?: number): Promise<void> {
    await this.events.idle(timeoutMs);
  }

  /** The bus is back after an outage: events waiting in outboxes are published now. */
  busReconnected(): void {
    this.events.busReconnected();
  }

  // ---- workers --------------------------------------------------------------------------------

  /** False while the job worker is deactivated: this engine claims no job (new jobs wait unclaimed). */
  get claimsJobs(): boolean {
    return this.workers.jobWorker;
  }

  /** False while the task worker is deactivated: tasks in flight finish, no task starts. */
  get startsTasks(): boolean {
    return this.workers.taskWorker;
  }

  /**
   * Switches this engine's workers. Activating the task worker reloads every job this engine drives
   * so that their ready tasks start; activating the job worker looks for jobs to claim at once.
   */
  setWorkers(workers: { jobWorker: boolean; taskWorker: boolean }): void {
    const before = this.workers;
    this.workers = { ...workers };
    if (workers.taskWorker && !before.taskWorker) for (const runner of this.runners.values()) runner.reloadSoon();
    if (workers.jobWorker && !before.jobWorker)
      this.scan(true).catch((err: unknown) => this.log.warn({ err }, 'Looking for jobs to claim failed'));
  }

  // ---- ownership ------------------------------------------------------------------------------

  /** How many jobs this engine drives now. */
  get ownedJobs(): number {
    return this.runners.size;
  }

  owns(jobId: string): boolean {
    return this.runners.has(jobId) || this.starting.has(jobId);
  }

  reserve(jobId: string): () => void {
    this.starting.add(jobId);
    return () => this.starting.delete(jobId);
  }

  /** Takes over the jobs of dead engines now (tests; it also runs on a timer); `full` also looks for this engine's own undriven jobs. */
  scan(full = false): Promise<void> {
    return this.lease.scan(full);
  }

  /** Drives a job here when its lease is this engine's or its holder is dead. Returns whether this engine owns it now. */
  tryAdopt(jobId: string): Promise<boolean> {
    return this.lease.tryAdopt(jobId);
  }

  identityLost(): void {
    const runners = [...this.runners.values()];
    this.runners.clear();
    for (const runner of runners) void runner.halt();
    this.events.stop();
  }

  drainEvents(jobId: string, after?: OutboxState): void {
    this.events.drain(jobId, after);
  }

  /** Runs a job this engine has claimed. */
  adopt(job: JobRecord, resumed: boolean): void {
    const runner = new JobRunner(this, job);
    this.runners.set(job._id, runner);
    runner.begin(resumed);
  }

  /** A runner ended (job finished, canceled, or claimed elsewhere). */
  release(jobId: string, runner: JobRunner): void {
    if (this.runners.get(jobId) === runner) this.runners.delete(jobId);
  }

  /** Another replica (or a handler) changed the job in the store: its owner reloads it and publishes what its outbox holds. */
  wake(jobId: string): void {
    const runner = this.runners.get(jobId);
    if (runner === undefined) return;
    runner.reloadSoon();
    this.events.drain(jobId);
  }

  /** Wakes the job's owner, here and on every other replica. */
  wakeOwner(jobId: string): void {
    this.wake(jobId);
    this.deps.broadcastWake(jobId);
  }

  /** Tells the owner of a job's parent that a child ended. */
  notifyParent(job: JobRecord): void {
    if (!job.parent) return;
    const parentId = job.parent.job;
    if (this.runners.has(parentId)) this.wake(parentId);
    else this.deps.broadcastWake(parentId);
  }

  // ---- what runners use -----------------------------------------------------------------------

  observe(event: JobEventName, job: JobRecord, payload: Record<string, unknown>): void {
    this.deps.observe?.(event, job, payload);
  }

  getWorkflow(name: string, caller: Caller, from?: string): Promise<WorkflowDocument> {
    return this.deps.getWorkflow(name, caller, from);
  }

  call(operationId: string, input: CallInput, caller: Caller): Promise<unknown> {
    return this.deps.call(operationId, input, caller);
  }

  // ---- job control (the handlers' door) -------------------------------------------------------

  /** Creates a job from a workflow, stores it claimed by this engine, and runs it. Returns the stored job. */
  startJob(input: StartJobInput): Promise<JobRecord> {
    return this.lifecycle.startJob(input);
  }

  /** Cancels an active job (and its active children); false when it was not active. */
  cancelJob(jobId: string, by: string): Promise<boolean> {
    return this.lifecycle.cancelJob(jobId, by);
  }

  /** Pauses a running job: tasks in flight finish, no new task starts. Returns the job after the change. */
  pauseJob(jobId: string, by: string): Promise<JobRecord> {
    return this.lifecycle.pauseJob(jobId, by);
  }

  /** Resumes a paused job. Returns the job after the change. */
  resumeJob(jobId: string, by: string): Promise<JobRecord> {
    return this.lifecycle.resumeJob(jobId, by);
  }

  /** Finishes a waiting manual task with the variables a person supplied; `finish_state` among them chooses success or failure. */
  finishTask(job: JobRecord, taskId: string, variables: Record<string, unknown>, by: string): Promise<JobRecord> {
    return this.lifecycle.finishTask(job, taskId, variables, by);
  }

  /** Runs a task of a job in error again with replacement incoming variables; the job goes on from there. */
  retryTask(jobId: string, taskId: string, variables: Record<string, { value: unknown }>, by: string): Promise<JobRecord> {
    return this.lifecycle.retryTask(jobId, taskId, variables, by);
  }
}
