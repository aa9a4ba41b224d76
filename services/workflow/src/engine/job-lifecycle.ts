import { AppError, MAX_SECRET_TEXT_BYTES, assertSecretTextWithin, declaredSecretMembers } from '@nap/contracts';
import type { Caller, JobEventName, WorkflowDocument } from '@nap/contracts';
import { cloneJson } from '../domain/builtins/types';
import { END, START } from '../domain/graph';
import { newJobId } from '../domain/ids';
import { isActiveStatus, isManual, newJobRecord, WAITING_LEASE } from '../domain/job-model';
import type { FinishRequest, JobRecord, JobTask, JobTraceContext, JobTrigger, ParentLink } from '../domain/job-model';
import { retryEntry, withRetry } from '../domain/task-retries';
import type { JobRepository } from '../store/job-repository';
import type { InputSchemaCache } from './input-schemas';
import { jobEventPayload, outboxEntry } from './job-events';
import type { JobEventRelay } from './job-events';
import { ownTraceOf } from './job-trace';
import type { LeaseManager } from './lease-manager';
import type { OwnedJobs } from './owned-jobs';
import type { WorkerSwitches } from './worker-switches';
import { ownValue, setOwn } from '@nap/util';

/** A job to create: the workflow it copies, its variables and options, the caller it acts as. */
export interface StartJobInput {
  workflow: WorkflowDocument;
  variables?: Record<string, unknown>;
  description?: string;
  type?: string;
  groups?: string[];
  caller: Caller;
  /** For a child job: where it reports, and its parent's ancestors and groups. */
  parent?: { link: ParentLink; ancestors: string[]; groups: string[] };
  /** An id chosen beforehand (a child job's, recorded in its parent); a new one otherwise. */
  jobId?: string;
  /** Pinned task outputs by task id or `app.method`. */
  pinned?: Record<string, Record<string, unknown>>;
  /** The trigger that starts the job. */
  trigger?: JobTrigger;
  /** The event triggers whose firing led to the job (see JobRecord.triggerChain). */
  triggerChain?: string[];
  /** What a refusal of `variables` names them as (`options.variables` of a start route); `variables` otherwise. */
  variablesMember?: string;
  /** Variables that what starts the job declares secret (a trigger's form or schema), as paths. */
  secretPaths?: string[][];
  /** The trace the job's task calls belong to: the start request's, a parent job's; a trace of its own when absent (see JobRecord.traceContext). */
  traceContext?: JobTraceContext;
}

/** What job control works with: the store, and the parts of the engine that drive, wake and publish. */
export interface LifecycleParts {
  serverId: string;
  repository: JobRepository;
  schemas: InputSchemaCache;
  /** The jobs driven here: a job started here is reserved, then adopted; owners of changed jobs are woken. */
  owned: Pick<OwnedJobs, 'reserve' | 'adopt' | 'startNew' | 'wakeOwner' | 'notifyParent'>;
  /** A resumed job is claimed here when no live engine owns it. */
  lease: Pick<LeaseManager, 'tryAdopt'>;
  /** Publishes what a job's outbox holds. */
  events: Pick<JobEventRelay, 'drain'>;
  /** While the job worker is deactivated a new job is stored unclaimed and waits for a replica that claims jobs. */
  workers: Pick<WorkerSwitches, 'claimsJobs'>;
  /** Sees an event of a job with the job as it is then (metrics). */
  observe(event: JobEventName, job: JobRecord, payload: Record<string, unknown>): void;
}

/**
 * Changes to jobs that callers ask for: start a job, cancel, pause and resume it, finish a manual
 * task, retry a task of a job in error. Each changes the job in the store (conditionally, so that a
 * change that lost a race answers 409) together with the event that announces it (into the job's
 * outbox), and wakes the job's owner, which applies it.
 */
export class JobLifecycle {
  constructor(private readonly parts: LifecycleParts) {}

  /** Creates a job from a workflow, stores it claimed by this engine, and runs it. Returns the stored job. */
  async startJob(input: StartJobInput): Promise<JobRecord> {
    return (await this.start(input, undefined)).job;
  }

  /**
   * {@link startJob} for a caller whose `input.workflow` nothing changes afterwards (read for this
   * start alone, or frozen and shared: see WorkflowCache) and that wants the job as it started in
   * the form `view` makes of it, a deep copy (the public job): the engine drives the job it made
   * without copying it first, one copy of a job fewer per start.
   */
  async startJobAs<T>(input: StartJobInput, view: (job: JobRecord) => T): Promise<T> {
    return (await this.start(input, view)).answer as T;
  }

  /** Starts the job; `view`, when given, makes the caller's answer before the job runs, and the job is driven uncopied. */
  private async start<T>(input: StartJobInput, view: ((job: JobRecord) => T) | undefined): Promise<{ job: JobRecord; answer?: T }> {
    const { workflow, caller } = input;
    const variables = cloneJson(input.variables ?? {});
    const job = newJobRecord({
      id: input.jobId ?? newJobId(),
      workflow,
      variables,
      caller,
      serverId: this.parts.serverId,
      now: Date.now(),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.type !== undefined ? { type: input.type } : {}),
      ...(input.groups !== undefined ? { groups: input.groups } : {}),
      ...(input.parent !== undefined ? { parent: input.parent } : {}),
      ...(input.pinned !== undefined ? { pinned: input.pinned } : {}),
      ...(input.trigger !== undefined ? { trigger: input.trigger } : {}),
      ...(input.triggerChain !== undefined ? { triggerChain: input.triggerChain } : {}),
      ...(input.secretPaths !== undefined ? { secretPaths: input.secretPaths } : {}),
      ...(input.traceContext !== undefined ? { traceContext: input.traceContext } : {}),
    });
    // what masks a job's secrets (by name, and those its inputSchema declares) is kept for the job's
    // life: a bounded size, refused before anything runs, whatever started it (a route, a trigger, a parent)
    const member = input.variablesMember ?? 'variables';
    assertSecretTextWithin(variables, member, MAX_SECRET_TEXT_BYTES, declaredSecretMembers(variables, job.secretInputs ?? [], member));
    // The inputSchema is what a caller starting the workflow must give; the platform's own `_id` and
    // `initiator` count, as the job holds them. A child job's variables are its parent's wiring and
    // are not checked: the fixtures' workflows pass their children values the children's schemas do
    // not describe (null re-attempt settings where an integer is declared), and run so.
    if (input.parent === undefined)
      await this.parts.schemas.check(workflow, variables, { _id: job._id, initiator: caller.username }, member);
    // a job that no request or parent handed a trace (a schedule, a trigger) gets a trace of its own
    const ownTrace = job.traceContext === undefined ? await ownTraceOf(job) : undefined;
    if (ownTrace !== undefined) job.traceContext = ownTrace;
    job.outbox = [outboxEntry('jobStart', jobEventPayload(job, { by: caller.username }))];
    // with the job worker deactivated the job waits, leased to no engine, for one that claims jobs
    const claims = this.parts.workers.claimsJobs;
    if (!claims) {
      job.lease = WAITING_LEASE;
      if (job.metrics) job.metrics.claim_time = 0;
    }
    // the caller's view of the job as it started, taken before anything drives the job
    const answer = view === undefined ? undefined : view(job);
    const release = this.parts.owned.reserve(job._id);
    try {
      if (claims) {
        // the runner drives its own copy, stored with its first step in one write (a job of inline
        // built-ins is stored finished); the caller gets the job as it started. The job shares values
        // with the workflow (see newJobRecord): a workflow nothing else changes needs no copy, and
        // the runner changes its job's own members only (a frozen workflow's values would throw).
        await this.parts.owned.startNew(view === undefined ? cloneJson(job) : job);
      } else {
        await this.parts.repository.insert(job);
        this.parts.events.drain(job._id, { outbox: job.outbox ?? [], published: 0, status: job.status });
      }
    } finally {
      release();
    }
    return view === undefined ? { job } : { job, answer };
  }

  /** Cancels an active job (and its active children); false when it was not active. */
  async cancelJob(jobId: string, by: string): Promise<boolean> {
    const { repository } = this.parts;
    const job = await repository.findById(jobId);
    if (job === null || !isActiveStatus(job.status)) return false;
    const canceled = { ...job, status: 'canceled' };
    // written with the cancel, after every event of the steps written before it: a step that writes
    // after it is refused (the job is no longer active), so jobCancel is the job's last event
    if (
      !(await repository.cancel(job, by, Date.now(), outboxEntry('jobCancel', jobEventPayload(canceled, { by, finishState: 'canceled' }))))
    )
      return false;
    this.parts.events.drain(jobId);
    this.parts.observe('jobCancel', canceled, {});
    this.parts.owned.wakeOwner(jobId);
    for (const childId of await repository.activeChildIds(jobId)) await this.cancelJob(childId, by);
    this.parts.owned.notifyParent(canceled);
    return true;
  }

  /** Pauses a running job: tasks in flight finish, no new task starts. Returns the job after the change. */
  pauseJob(jobId: string, by: string): Promise<JobRecord> {
    return this.changeStatus(jobId, 'running', 'paused', 'jobPause', by);
  }

  /** Resumes a paused job. Returns the job after the change. */
  async resumeJob(jobId: string, by: string): Promise<JobRecord> {
    const job = await this.changeStatus(jobId, 'paused', 'running', 'jobResume', by);
    if (!(await this.parts.lease.tryAdopt(jobId))) this.parts.owned.wakeOwner(jobId);
    return job;
  }

  private async changeStatus(jobId: string, from: string, to: string, event: 'jobPause' | 'jobResume', by: string): Promise<JobRecord> {
    const { repository } = this.parts;
    const current = await repository.summaryOf(jobId);
    if (current === undefined) throw new AppError('JOB_NOT_FOUND', `No job with id "${jobId}"`);
    const job =
      current.status === from
        ? await repository.changeStatus(jobId, from, to, by, outboxEntry(event, jobEventPayload({ ...current, status: to }, { by })))
        : null;
    if (job === null)
      throw new AppError('JOB_STATE_CONFLICT', `Job "${jobId}" is ${(await repository.statusOf(jobId)) ?? current.status}, not ${from}`);
    this.parts.events.drain(jobId);
    this.parts.owned.wakeOwner(jobId);
    return job;
  }

  /**
   * Finishes a waiting manual task with the variables a person supplied (its outgoing);
   * `finish_state` among them chooses success (default) or failure. The owner applies it.
   */
  async finishTask(job: JobRecord, taskId: string, variables: Record<string, unknown>, by: string): Promise<JobRecord> {
    // own members only: "constructor" or "toString" name no task of a job
    const task = ownValue(job.tasks, taskId);
    if (task === undefined) throw new AppError('TASK_NOT_FOUND', `Job "${job._id}" has no task "${taskId}"`);
    if (!isManual(task)) throw new AppError('JOB_STATE_CONFLICT', `Task "${taskId}" of job "${job._id}" is not a manual task`);
    const { finish_state: finishState, ...outgoing } = variables;
    if (finishState !== undefined && finishState !== 'success' && finishState !== 'failure') {
      throw new AppError(
        'VALIDATION_FAILED',
        `body.variables.finish_state must be success or failure, not ${JSON.stringify(finishState)}`,
        {
          details: [{ member: 'body.variables.finish_state', message: 'must be success or failure' }],
        },
      );
    }
    const request: FinishRequest = { variables: outgoing, finishState: finishState ?? 'success', by, at: Date.now() };
    const updated = await this.parts.repository.requestFinish(job._id, taskId, request, job);
    if (updated === null) {
      // the job as read may be older than what refused the answer (another answer at the same time): say what it is now
      const now = (await this.parts.repository.findById(job._id)) ?? job;
      const current = ownValue(now.tasks, taskId) ?? task;
      const answered = current.finishRequest ?? (current.metrics?.user !== undefined ? { by: current.metrics.user } : undefined);
      throw new AppError(
        'JOB_STATE_CONFLICT',
        answered !== undefined
          ? `Task "${taskId}" of job "${job._id}" was already answered by "${String(answered.by)}"`
          : `Task "${taskId}" of job "${job._id}" is not waiting to be finished (task ${String(current.status)}, job ${now.status})`,
      );
    }
    this.parts.owned.wakeOwner(job._id);
    return updated;
  }

  /**
   * Runs a task of a job that ended in error again, with replacement incoming variables; the job
   * goes on from there, driven by this engine. The task keeps a record of the retry in `retries`
   * (who, when, how it had ended, which variables changed; see {@link retryEntry}), and the
   * jobResume event names the task. Returns the job as it restarts.
   */
  async retryTask(jobId: string, taskId: string, variables: Record<string, { value: unknown }>, by: string): Promise<JobRecord> {
    const job = await this.parts.repository.findById(jobId);
    if (job === null) throw new AppError('JOB_NOT_FOUND', `No job with id "${jobId}"`);
    // own members only: "constructor" or "toString" name no task, and would be written into the job as one
    const task = ownValue(job.tasks, taskId);
    if (task === undefined) throw new AppError('TASK_NOT_FOUND', `Job "${jobId}" has no task "${taskId}"`);
    // running workflow_end again would end the job complete with its failed task still in error, and a
    // task that never ran would skip the one that failed the same way: only a task that ran is retried
    if (taskId === START || taskId === END)
      throw new AppError(
        'VALIDATION_FAILED',
        `Task "${taskId}" marks the ${taskId === START ? 'start' : 'end'} of the workflow; retry the task that failed`,
        {
          details: [{ member: 'body.taskId', message: `is ${taskId}, which is not a task that runs` }],
        },
      );
    if (task.status === 'incomplete')
      throw new AppError(
        'JOB_STATE_CONFLICT',
        `Task "${taskId}" of job "${jobId}" never ran (status incomplete); retry a task that ran, such as the one that failed`,
      );
    if (job.status !== 'error')
      throw new AppError('JOB_STATE_CONFLICT', `Job "${jobId}" is ${job.status}; only a job in error can retry a task`);
    if (job.archive !== undefined)
      throw new AppError('JOB_STATE_CONFLICT', `Job "${jobId}" is being archived; its tasks can no longer be retried`);
    const incoming = { ...(task.variables?.incoming ?? {}) };
    const replacements: Record<string, unknown> = {};
    for (const [name, v] of Object.entries(variables)) {
      setOwn(replacements, name, v.value);
      setOwn(incoming, name, v.value);
    }
    const now = Date.now();
    const entry = retryEntry({ task, taskId, jobErrors: job.error, job, replacements, by, at: now });
    const retried: JobTask = {
      ...task,
      status: 'pending',
      variables: { ...(task.variables ?? {}), incoming, error: '' },
      retries: withRetry(task.retries, entry),
    };
    delete retried.retryAt;
    if (retried.retrySettings) retried.retrySettings = { ...retried.retrySettings, count: 0 };
    const resumed = outboxEntry('jobResume', jobEventPayload({ ...job, status: 'running' }, { by, taskId }));
    const updated = await this.parts.repository.restartTask(jobId, taskId, retried, this.parts.serverId, now, by, resumed, job);
    if (updated === null) {
      // another retry (or an archive) got there first: trying again blindly would retry twice, so say what the job is now
      const current = await this.parts.repository.findById(jobId);
      throw new AppError(
        'JOB_STATE_CONFLICT',
        current?.archive !== undefined
          ? `Job "${jobId}" is being archived; its tasks can no longer be retried`
          : `Job "${jobId}" is ${current?.status ?? 'no longer stored'}: another request retried or changed it while its task was being retried; read it again before retrying`,
      );
    }
    this.parts.owned.adopt(cloneJson(updated), true);
    this.parts.events.drain(jobId);
    return updated;
  }
}
