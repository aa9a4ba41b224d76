import { randomUUID } from 'node:crypto';
import type { Caller, JobEventName, WorkflowDocument } from '@nap/contracts';
import type { CallInput } from '@nap/bus';
import type { SecretBox } from '@nap/runtime';
import type { Collection } from '@nap/store';
import type { Context, Logger } from '@nap/telemetry';
import type { JobRecord } from '../domain/job-model';
import { EngineRegistry } from '../store/engine-registry';
import type { EngineRecord } from '../store/engine-registry';
import { JobRepository } from '../store/job-repository';
import { JobSealer } from '../store/job-sealer';
import { JobValueRepository } from '../store/job-value-repository';
import type { JobValueRecord } from '../store/job-value-repository';
import { DEFAULT_INLINE_VALUE_BYTES, DEFAULT_MAX_VALUE_BYTES } from '../domain/job-values';
import type { ValueLimits } from '../domain/job-values';
import { InputSchemaCache } from './input-schemas';
import { SchemaThread } from './schema-thread';
import { JobEventRelay } from './job-events';
import type { PublishEvents } from './job-events';
import { JobLifecycle } from './job-lifecycle';
import type { StartJobInput } from './job-lifecycle';
import { JobRunner } from './job-runner';
import type { RunnerHost } from './job-runner';
import { LeaseManager } from './lease-manager';
import type { LeaseClock } from './lease-manager';
import { OwnedJobs } from './owned-jobs';
import { WorkerSwitches } from './worker-switches';
import { WorkflowCache } from './workflow-cache';

/** What the engine needs from the world; the service wires the bus and the store in. */
export interface EngineDeps {
  jobs: Collection<JobRecord>;
  /** Task outputs and variables too large for their job document (see `domain/job-values`). */
  jobValues: Collection<JobValueRecord>;
  /** One heartbeat document per engine process (see {@link EngineRegistry}). */
  engines: Collection<EngineRecord>;
  /**
   * Reads a workflow document by name as the given caller; WORKFLOW_NOT_FOUND when absent. `from` is
   * the workflow whose childJob task names it (a plain name from a project member means that
   * project's member first: studio's rule). `trace`: the trace of the job that asks (see below).
   */
  getWorkflow(name: string, caller: Caller, from?: string, trace?: Context): Promise<WorkflowDocument>;
  /**
   * Calls a catalog operation named at run time (a task's app and name) as the given caller; returns
   * its body, throws AppError. `trace` is the job's (JobRecord.traceContext): the parent of the call's
   * CLIENT span, so that a job's calls belong to the trace of the request that started it, whichever
   * engine drives it; absent for a job that stores none.
   */
  call(operationId: string, input: CallInput, caller: Caller, trace?: Context): Promise<unknown>;
  /** Publishes durable events in order (resolves once the bus stored them, or with how many it stored before one failed). */
  publishEvents: PublishEvents;
  /** False while the bus is known to be down: events wait in their outbox. Always up when absent. */
  busConnected?(): boolean;
  /** Tells every engine replica that a job changed in the store (the owner reloads it). */
  broadcastWake(jobId: string): void;
  logger: Logger;
  /** Sees every event of a job with the job as it is then (the service's metrics). */
  observe?: (event: JobEventName, job: JobRecord, payload: Record<string, unknown>) => void;
  /** The clock the leases are timed on (heartbeats, scans, when another engine is dead); the process's unless given (tests). */
  leaseClock?: LeaseClock;
  /**
   * Seals the secret values of jobs in the store with the platform's secret key (see `store/job-sealer`);
   * without it (tests of other parts) jobs are stored as they are.
   */
  secrets?: SecretBox;
}

/**
 * Descendant jobs one root job may have by default: one start by one caller cannot fill the store
 * with a childJob `data_array` at each of the ten levels children nest. The workflows of the
 * platform NAP replaces run a child per device, IP address or rule of a list, far fewer.
 */
export const DEFAULT_MAX_JOBS_PER_TREE = 10_000;

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
  /** Task outputs and variables larger than this many bytes of JSON are kept out of the job document; 64 KiB unless given. */
  inlineValueBytes?: number;
  /** A task output or value larger than this many bytes of JSON fails its task with VALUE_TOO_LARGE; 15 MiB unless given. */
  maxValueBytes?: number;
  /**
   * How many descendant jobs (children, their children, …) one root job may have; a childJob task
   * that would pass it fails, creating none. {@link DEFAULT_MAX_JOBS_PER_TREE} unless given.
   */
  maxJobsPerTree?: number;
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
 * This class builds the parts, each given the parts below it, and is the door the service and the
 * handlers use. From the bottom up: the event relay (publishes each job's outbox) and the worker
 * switches; the owned jobs (a runner per job driven here; waking a job's owner); the lease manager
 * (heartbeat, takeover); the job lifecycle (what callers ask of jobs). No part holds its owner:
 * a runner tells the owned jobs that it stopped or that its job ended through the listener they
 * hand it, and starts its child jobs through the lifecycle, the one link this constructor closes.
 */
export class JobEngine {
  readonly serverId: string;
  readonly leaseMs: number;
  readonly renewMs: number;
  readonly scanMs: number;
  readonly unavailableRetryMs: number;
  readonly maxJobsPerTree: number;
  readonly timeScale: number;
  readonly valueLimits: ValueLimits;
  readonly repository: JobRepository;
  readonly events: JobEventRelay;
  /** Checks values against users' JSON Schemas (inputSchemas, trigger and form schemas) off the event loop, with a time limit. */
  readonly schemaThread = new SchemaThread();
  /** The workflows starts read from the studio, parsed once per reply text and shared frozen (see {@link WorkflowCache}). */
  readonly workflows = new WorkflowCache();
  private readonly workers = new WorkerSwitches();
  private readonly owned: OwnedJobs;
  private readonly lease: LeaseManager;
  private readonly lifecycle: JobLifecycle;

  constructor(
    readonly deps: EngineDeps,
    readonly options: EngineOptions = {},
  ) {
    this.serverId = options.serverId ?? `workflow-${randomUUID()}`;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.renewMs = options.renewMs ?? Math.max(20, Math.floor(this.leaseMs / 3));
    this.scanMs = options.scanMs ?? Math.max(20, Math.floor(this.leaseMs / 3));
    this.unavailableRetryMs = options.unavailableRetryMs ?? 60_000;
    this.maxJobsPerTree = options.maxJobsPerTree ?? DEFAULT_MAX_JOBS_PER_TREE;
    this.timeScale = options.timeScale ?? 1;
    this.valueLimits = {
      inlineBytes: options.inlineValueBytes ?? DEFAULT_INLINE_VALUE_BYTES,
      maxBytes: options.maxValueBytes ?? DEFAULT_MAX_VALUE_BYTES,
    };
    const { serverId, workers } = this;
    const log = deps.logger;
    const observe = (event: JobEventName, job: JobRecord, payload: Record<string, unknown>): void => deps.observe?.(event, job, payload);
    const repository = new JobRepository(
      deps.jobs,
      new JobValueRepository(deps.jobValues, this.valueLimits),
      deps.secrets === undefined ? undefined : new JobSealer(deps.secrets),
    );
    const connected = deps.busConnected?.bind(deps) ?? (() => true);
    const events = new JobEventRelay(repository, { publish: deps.publishEvents, connected }, log);
    const runnerHost: RunnerHost = {
      serverId,
      repository,
      log,
      events,
      workers,
      observe,
      timeScale: this.timeScale,
      unavailableRetryMs: this.unavailableRetryMs,
      maxJobsPerTree: this.maxJobsPerTree,
      valueLimits: this.valueLimits,
      getWorkflow: (name, caller, from, trace) => deps.getWorkflow(name, caller, from, trace),
      call: (operationId, input, caller, trace) => deps.call(operationId, input, caller, trace),
      // a child job is started like any other, and driven here: the lifecycle is built below
      startJob: (input) => lifecycle.startJob(input),
    };
    const owned = new OwnedJobs(
      (job, listener) => new JobRunner(runnerHost, job, listener),
      events,
      (jobId) => deps.broadcastWake(jobId),
    );
    const timing = { leaseMs: this.leaseMs, renewMs: this.renewMs, scanMs: this.scanMs };
    const lease = new LeaseManager(
      serverId,
      timing,
      repository,
      new EngineRegistry(deps.engines),
      { owned, events, workers },
      log,
      deps.leaseClock,
    );
    const lifecycle = new JobLifecycle({
      serverId,
      repository,
      schemas: new InputSchemaCache(this.schemaThread),
      owned,
      lease,
      events,
      workers,
      observe,
    });
    this.repository = repository;
    this.events = events;
    this.owned = owned;
    this.lease = lease;
    this.lifecycle = lifecycle;
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
    await this.schemaThread.stop();
    await this.owned.haltAll();
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
    return this.workers.claimsJobs;
  }

  /** False while the task worker is deactivated: tasks in flight finish, no task starts. */
  get startsTasks(): boolean {
    return this.workers.startsTasks;
  }

  /**
   * Switches this engine's workers. Activating the task worker reloads every job this engine drives
   * so that their ready tasks start; activating the job worker looks for jobs to claim at once.
   */
  setWorkers(workers: { jobWorker: boolean; taskWorker: boolean }): void {
    const { jobWorkerOn, taskWorkerOn } = this.workers.set(workers);
    if (taskWorkerOn) this.owned.reloadAll();
    if (jobWorkerOn) this.scan(true).catch((err: unknown) => this.deps.logger.warn({ err }, 'Looking for jobs to claim failed'));
  }

  // ---- ownership ------------------------------------------------------------------------------

  /** How many jobs this engine drives now. */
  get ownedJobs(): number {
    return this.owned.count;
  }

  /** True when this engine drives the job now (or is starting it). */
  owns(jobId: string): boolean {
    return this.owned.owns(jobId);
  }

  /** Takes over the jobs of dead engines now (tests; it also runs on a timer); `full` also looks for this engine's own undriven jobs. */
  scan(full = false): Promise<void> {
    return this.lease.scan(full);
  }

  /** Drives a job here when its lease is this engine's or its holder is dead. Returns whether this engine owns it now. */
  tryAdopt(jobId: string): Promise<boolean> {
    return this.lease.tryAdopt(jobId);
  }

  /** Another replica (or a handler) changed the job in the store: its owner reloads it and publishes what its outbox holds. */
  wake(jobId: string): void {
    this.owned.wake(jobId);
  }

  // ---- job control (the handlers' door) -------------------------------------------------------

  /** Creates a job from a workflow, stores it claimed by this engine, and runs it. Returns the stored job. */
  startJob(input: StartJobInput): Promise<JobRecord> {
    return this.lifecycle.startJob(input);
  }

  /**
   * {@link startJob} for a caller whose `input.workflow` nothing changes afterwards (read for this
   * start alone, or frozen and shared: {@link workflows}) and that wants the job as it started as
   * `view` makes it (a deep copy, such as the public job): the job is not copied for the engine first.
   */
  startJobAs<T>(input: StartJobInput, view: (job: JobRecord) => T): Promise<T> {
    return this.lifecycle.startJobAs(input, view);
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
