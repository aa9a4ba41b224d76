import { randomUUID } from 'node:crypto';
import type { Caller, JobEventName, WorkflowDocument } from '@nap/contracts';
import type { CallInput } from '@nap/bus';
import type { Collection } from '@nap/store';
import type { Logger } from '@nap/telemetry';
import type { JobRecord } from '../domain/job-model';
import { JobRepository } from '../store/job-repository';
import { InputSchemaCache } from './input-schemas';
import { JobEventPublisher } from './job-events';
import { JobLifecycle } from './job-lifecycle';
import type { LifecycleHost, StartJobInput } from './job-lifecycle';
import { JobRunner } from './job-runner';
import type { RunnerHost } from './job-runner';
import { LeaseManager } from './lease-manager';
import type { JobOwner } from './lease-manager';

/** What the engine needs from the world; the service wires the bus and the store in. */
export interface EngineDeps {
  jobs: Collection<JobRecord>;
  /**
   * Reads a workflow document by name as the given caller; WORKFLOW_NOT_FOUND when absent. `from` is
   * the workflow whose childJob task names it (a plain name from a project member means that
   * project's member first: studio's rule).
   */
  getWorkflow(name: string, caller: Caller, from?: string): Promise<WorkflowDocument>;
  /** Calls a catalog operation named at run time (a task's app and name) as the given caller; returns its body, throws AppError. */
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
  /**
   * How many times faster than real time `delay` (and `stub` delay) waits pass: 1 (default) is real
   * time; tests run the fixtures' 400 s delays on a scaled clock (NAP_TIME_SCALE), as Temporal's
   * time-skipping test environment does.
   */
  timeScale?: number;
}

/**
 * The workflow engine: creates jobs, runs their tasks where they live, and keeps the job document
 * in the store up to date before and after each task. Each running job is owned by one engine
 * replica (a lease in `metrics.server_id` / `metrics.claim_time`, renewed while the owner lives);
 * a replica that starts, or finds a job whose owner stopped renewing, claims it and resumes it.
 * A task that was in flight when its owner died runs again (at-least-once).
 *
 * This class wires the parts together and keeps the runners of the jobs it owns: the lease manager
 * (claims), the job lifecycle (what callers ask for), the runners (one per job) and the event publisher.
 */
export class JobEngine implements RunnerHost, LifecycleHost, JobOwner {
  readonly serverId: string;
  readonly leaseMs: number;
  readonly timeScale: number;
  readonly repository: JobRepository;
  readonly events: JobEventPublisher;
  readonly schemas = new InputSchemaCache();
  private readonly lease: LeaseManager;
  private readonly lifecycle: JobLifecycle;
  private readonly runners = new Map<string, JobRunner>();

  constructor(
    readonly deps: EngineDeps,
    readonly options: EngineOptions = {},
  ) {
    this.serverId = options.serverId ?? `workflow-${randomUUID()}`;
    this.leaseMs = options.leaseMs ?? 15_000;
    this.timeScale = options.timeScale ?? 1;
    const renewMs = options.renewMs ?? Math.max(50, Math.floor(this.leaseMs / 3));
    const scanMs = options.scanMs ?? Math.max(50, Math.floor(this.leaseMs / 2));
    this.repository = new JobRepository(deps.jobs);
    this.events = new JobEventPublisher(deps.publishEvent, deps.logger);
    this.lease = new LeaseManager(this.serverId, { leaseMs: this.leaseMs, renewMs, scanMs }, this.repository, this, deps.logger);
    this.lifecycle = new JobLifecycle(this);
  }

  get log(): Logger {
    return this.deps.logger;
  }

  // ---- lifetime -------------------------------------------------------------------------------

  /** Resumes the jobs without a live owner and starts renewing and scanning. */
  async start(): Promise<void> {
    await this.lease.start();
  }

  /** Stops every runner and hands its jobs back (claim time cleared) so another replica resumes them at once. */
  async stop(): Promise<void> {
    this.lease.stopTimers();
    const runners = [...this.runners.values()];
    this.runners.clear();
    await Promise.all(runners.map((r) => r.halt()));
    if (runners.length > 0) await this.lease.handBack();
  }

  /** Waits until the events published so far are on the bus (tests, shutdown). */
  async flushEvents(): Promise<void> {
    await this.events.flush();
  }

  // ---- ownership ------------------------------------------------------------------------------

  /** How many jobs this engine drives now. */
  get ownedJobs(): number {
    return this.runners.size;
  }

  owns(jobId: string): boolean {
    return this.runners.has(jobId);
  }

  /** Claims every active job whose lease expired (or that names this engine) and resumes it. */
  scan(): Promise<void> {
    return this.lease.scan();
  }

  /** Claims a job when its lease expired (or it is ours) and runs it here. Returns whether this engine owns it now. */
  tryAdopt(jobId: string): Promise<boolean> {
    return this.lease.tryAdopt(jobId);
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

  /** Another replica (or a handler) changed the job in the store: its owner reloads it. */
  wake(jobId: string): void {
    this.runners.get(jobId)?.reloadSoon();
  }

  /** Wakes the job's owner, here and on every other replica. */
  wakeOwner(jobId: string): void {
    this.wake(jobId);
    this.deps.broadcastWake(jobId);
  }

  async settled(jobId: string): Promise<void> {
    await this.runners.get(jobId)?.settled();
  }

  /** Tells the owner of a job's parent that a child ended. */
  notifyParent(job: JobRecord): void {
    if (!job.parent) return;
    const parentId = job.parent.job;
    if (this.runners.has(parentId)) this.wake(parentId);
    else this.deps.broadcastWake(parentId);
  }

  // ---- what runners use -----------------------------------------------------------------------

  publish(jobId: string, event: JobEventName, payload: Record<string, unknown>): void {
    this.events.publish(jobId, event, payload);
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
