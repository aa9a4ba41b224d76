import { findDeclaredSecrets, findSecrets, noSecrets, secretMask } from '@nap/contracts';
import type { FoundSecrets, JobEventName, SecretMask } from '@nap/contracts';
import type { Logger } from '@nap/telemetry';
import { isRecord, merged, setOwn } from '@nap/util';
import { END, JobGraph, START } from '../domain/graph';
import { NO_TRANSITION_MESSAGE } from '../domain/job-model';
import type { JobRecord, JobTask, OutboxEntry } from '../domain/job-model';
import { resolveTaskIncoming } from '../domain/references';
import type { ReferenceScope } from '../domain/references';
import type { TaskOutcome } from '../domain/task-outcome';
import { errorOutcome } from '../domain/task-outcome';
import { DEFAULT_VALUE_LIMITS, oversizedValue, valueTooLargeMessage } from '../domain/job-values';
import type { ValueLimits } from '../domain/job-values';
import { jobEventPayload, outboxEntry } from './job-events';

/** Runs `fn` as a later serialized step of the job's runner (a task's outcome, a timer, a child job's news). */
export type RunStep = (fn: () => void | Promise<void>) => Promise<void>;

/** One step's store update: its changes by store path and its events for the job's outbox. */
export interface StepWrite {
  set: Record<string, unknown>;
  events: OutboxEntry[];
  /** The job's count of written steps before this one: the write is made only while the stored count is this. */
  steps: number;
}

/**
 * Logs (debug) the references of task `id` that named nothing set (a scope's `unresolved`): the task
 * got undefined or null for them, by the platform's rules, and ran on.
 */
export function logUnresolved(log: Logger, job: JobRecord, id: string, unresolved: readonly string[]): void {
  if (unresolved.length === 0) return;
  const task = job.tasks[id];
  log.debug(
    { jobId: job._id, taskId: id, app: task?.app, task: task?.name, references: [...new Set(unresolved)] },
    'References of a task name nothing set: the task got undefined or null for them',
  );
}

/** Who answered a manual task (username) and when (epoch ms): a FinishRequest's `by` and `at`. */
export interface PersonAnswer {
  by: string;
  at: number;
}

/** When a task a person answered ended: when they answered, and never before it started (replicas' clocks differ). */
function endOf(task: JobTask, answer: PersonAnswer): number {
  return Math.max(answer.at, task.metrics?.start_time ?? answer.at);
}

/** Members of a job that a step writes whole when it changed them (tasks are written one by one). */
export type JobField = 'variables' | 'error' | 'status' | 'metrics';

/**
 * The working copy of a job on its owning engine, and what the current step did to it: the tasks
 * and members it changed and the events it produced (written together in one store update when the
 * step ends, the events into the job's outbox) and the work it queued (launched after the write, so
 * that the store says a task runs before it does). It also applies what a finished task means for the graph: its
 * record, the job variables it writes and the transitions it takes.
 */
export class JobState {
  job: JobRecord;
  graph: JobGraph;
  /** The job ended in this step (complete or error). */
  finished = false;
  /**
   * Tasks that finished with success or failure and took no transition, in order: their branch
   * ended. The job fails naming them only if nothing else reaches workflow_end (kept in memory: after
   * a reload the job names the task that finished last instead).
   */
  readonly deadEnds = new Set<string>();
  private readonly dirtyTasks = new Set<string>();
  private readonly dirtyFields = new Set<JobField>();
  private events: [JobEventName, Record<string, unknown>][] = [];
  private launches: (() => void)[] = [];
  /** The resolved incoming values each running task started with (see {@link started}); kept in memory only. */
  private readonly ranWith = new Map<string, Record<string, unknown>>();
  /** The secrets of the job's variables, found at a task's failure and kept until a variable changes. */
  private variableSecrets: FoundSecrets | undefined;
  /**
   * The mask of those secrets, kept while they stay the same (a variable that changes seldom
   * changes them): building one costs the characters of the secrets' forms, and a job of
   * thousands of secret variables can fail many tasks.
   */
  private variableMask: { secrets: FoundSecrets; mask: SecretMask } | undefined;

  constructor(
    job: JobRecord,
    readonly serverId: string,
    private readonly log: Logger,
    /** Values larger than `maxBytes` fail their task with VALUE_TOO_LARGE instead of entering the job. */
    readonly valueLimits: ValueLimits = DEFAULT_VALUE_LIMITS,
  ) {
    this.job = job;
    this.graph = new JobGraph(job.tasks, job.transitions);
  }

  /** Takes the job as stored as the working copy (after a reload). */
  replace(job: JobRecord): void {
    this.job = job;
    this.graph = new JobGraph(job.tasks, job.transitions);
    this.variableSecrets = undefined;
  }

  /** The task `id` of the job; throws when the job has none (an engine bug, not a user error). */
  task(id: string): JobTask {
    const task = this.job.tasks[id];
    if (task === undefined) throw new Error(`Job "${this.job._id}" has no task "${id}"`);
    return task;
  }

  markTask(id: string): void {
    this.dirtyTasks.add(id);
  }

  markField(field: JobField): void {
    this.dirtyFields.add(field);
  }

  /** Queues work to start once the step's write is done. */
  later(launch: () => void): void {
    this.launches.push(launch);
  }

  /** Queues an event of the job, published once the step's write is done. */
  emitJob(event: JobEventName, extra: Record<string, unknown>): void {
    this.events.push([event, jobEventPayload(this.job, extra)]);
  }

  /** Queues a task event; a manual task's finish names who answered, and happened when they did. */
  emitTask(event: 'taskStart' | 'taskFinish', id: string, finishState?: string, answer?: PersonAnswer): void {
    const task = this.task(id);
    const payload: Record<string, unknown> = {
      jobId: this.job._id,
      name: this.job.name,
      status: this.job.status,
      timestamp: answer === undefined ? Date.now() : endOf(task, answer),
      taskId: id,
      taskName: String(task.name ?? id),
      taskStatus: String(task.status),
    };
    // added in this order rather than spread from objects made for them: two a task event, two events a task
    if (finishState) payload.finishState = finishState;
    if (answer !== undefined) payload.by = answer.by;
    this.events.push([event, payload]);
  }

  /** What references in incoming values resolve against. */
  scope(): ReferenceScope {
    return { variables: this.job.variables, tasks: this.job.tasks };
  }

  /**
   * Resolves references for task `id` with {@link scope}: `resolve` gets a scope that notes each
   * reference naming nothing set (given to the task as undefined or null, by the platform's rules),
   * and those are logged at debug level with the job and the task, so that a person can tell why a
   * value is missing. The task's record already shows the reference itself (`variables.incoming`).
   */
  resolving<T>(id: string, resolve: (scope: ReferenceScope) => T): T {
    const unresolved: string[] = [];
    try {
      // written out rather than `{ ...this.scope(), unresolved }`: that spread costs about 1 µs, twice per task
      return resolve({ variables: this.job.variables, tasks: this.job.tasks, unresolved });
    } finally {
      logUnresolved(this.log, this.job, id, unresolved);
    }
  }

  /** The job has an error entry: it starts nothing more and ends in error once nothing is in flight. */
  isFailing(): boolean {
    return this.job.error.length > 0;
  }

  /** Marks a task reached (pending), unless it is running. */
  activate(id: string): void {
    const task = this.job.tasks[id];
    if (task === undefined || task.status === 'running') return;
    task.status = 'pending';
    this.markTask(id);
  }

  setVariable(name: string, value: unknown): void {
    // an own member even when named __proto__ (as JSON.parse makes it), never the prototype
    setOwn(this.job.variables, name, value);
    this.variableSecrets = undefined;
    this.markField('variables');
  }

  /**
   * Notes the resolved incoming values task `id` starts with: should it fail, the secrets among
   * them are masked in its error even when the variables they came from changed meanwhile.
   */
  started(id: string, incoming: Record<string, unknown>): void {
    this.ranWith.set(id, incoming);
  }

  addError(task: string, message: string): void {
    this.job.error = [...this.job.error, { task, message, timestamp: Date.now() }];
    this.markField('error');
  }

  /**
   * Records how a task finished: status, metrics, outgoing and error, and the job variables its
   * `writes` name. A manual task a person answered records who (`metrics.user`) and ends when they
   * answered, whichever engine applies the answer and however long after.
   */
  recordFinish(
    id: string,
    finishState: TaskOutcome['finishState'],
    outgoing: Record<string, unknown>,
    error?: string,
    answer?: PersonAnswer,
  ): void {
    const task = this.task(id);
    const t = answer === undefined ? Date.now() : endOf(task, answer);
    task.status = finishState === 'error' ? 'error' : 'complete';
    // changed in place rather than copied with the changes: the task's metrics are its own (made when
    // it started, or read with the job), and a copy per task's end was most of what its end made
    const metrics = (task.metrics ??= {});
    const start = metrics.start_time ?? t;
    metrics.start_time = start;
    metrics.end_time = t;
    metrics.run_time = t - start;
    metrics.finish_state = finishState;
    metrics.server_id = this.serverId;
    if (answer !== undefined) metrics.user = answer.by;
    const variables = (task.variables ??= {});
    const recorded = variables.outgoing;
    // in place too (the task's outgoing values are its own) unless a member named __proto__ would set a prototype
    if (isRecord(recorded) && !Object.hasOwn(outgoing, '__proto__')) Object.assign(recorded, outgoing);
    else variables.outgoing = merged(recorded, outgoing);
    if (error !== undefined) variables.error = error;
    const writes = task.writes?.outgoing;
    if (writes) {
      for (const name in writes) {
        if (Object.hasOwn(writes, name) && Object.hasOwn(outgoing, name)) this.setVariable(writes[name] as string, outgoing[name]);
      }
    }
    const writesError = task.writes?.error;
    if (writesError && error !== undefined) this.setVariable(writesError, error);
    this.markTask(id);
  }

  /**
   * The outcome with a value too large for a job (an output, a variable it sets) replaced by the
   * task's failure with VALUE_TOO_LARGE, so the job goes on along the task's error transition.
   */
  private withinLimits(id: string, outcome: TaskOutcome): TaskOutcome {
    const { maxBytes } = this.valueLimits;
    const output = oversizedValue(outcome.outgoing, maxBytes);
    const variable =
      output === undefined && outcome.setVariables !== undefined ? oversizedValue(outcome.setVariables, maxBytes) : undefined;
    const big = output ?? variable;
    if (big === undefined) return outcome;
    const what = output !== undefined ? `the output "${big.name}" of task "${id}"` : `the variable "${big.name}" that task "${id}" sets`;
    this.log.warn({ jobId: this.job._id, taskId: id, bytes: big.bytes, maxBytes }, 'A task produced a value too large for its job');
    return { ...errorOutcome(valueTooLargeMessage(what, big.bytes, maxBytes)), ...(outcome.endsJob === true ? { endsJob: true } : {}) };
  }

  /**
   * A failed task's outcome with the secrets it may repeat masked, in its error text and in its
   * outgoing values (a system's answer to a failed call: its body may echo the request): the
   * secrets of the values the task ran with (its resolved incoming, its incoming as written, what a
   * manual task was shown, a childJob's inputs), of the job's variables and of that answer, in the
   * forms texts hold them ({@link secretMask}). Every failure is recorded through here (a
   * built-in's, an app's, a child job's, a reference that cannot resolve; {@link complete}, and an
   * automatic retry, which shows the error until the task runs again), so the store, the job's
   * answers and events, its archives and the retry record never see them. Any other outcome is
   * returned as it is, without a search: a task that succeeded costs nothing.
   */
  withSecretsMasked(id: string, outcome: TaskOutcome): TaskOutcome {
    if (outcome.finishState !== 'error' && outcome.error === undefined) return outcome;
    // the secrets of the variables by name, and those the workflow's inputSchema declares
    const variables = (this.variableSecrets ??= findDeclaredSecrets(
      this.job.variables,
      this.job.secretInputs ?? [],
      findSecrets(this.job.variables),
    ));
    if (this.variableMask === undefined || !sameSecrets(this.variableMask.secrets, variables))
      this.variableMask = { secrets: variables, mask: secretMask(variables) };
    // the task's own secrets (most are the job's: those are not searched for twice)
    const found = noSecrets();
    const task = this.job.tasks[id];
    if (task !== undefined) {
      findSecrets(this.ranWith.get(id) ?? this.resolvedAgain(task), found);
      findSecrets(task.variables?.incoming, found);
      findSecrets(task.variables?.resolved, found);
      findSecrets(task.childRun?.inputs, found);
    }
    findSecrets(outcome.outgoing, found);
    const mask = this.variableMask.mask.with(found);
    const error = outcome.error === undefined ? undefined : mask.text(outcome.error);
    const outgoing = mask.value(outcome.outgoing);
    if (error === outcome.error && outgoing === outcome.outgoing) return outcome;
    return { ...outcome, outgoing, ...(error !== undefined ? { error } : {}) };
  }

  /** The task's incoming resolved against the job as it is now (the values it started with were not noted: a reload); nothing when one cannot be. */
  private resolvedAgain(task: JobTask): Record<string, unknown> | undefined {
    try {
      return resolveTaskIncoming(task, this.scope());
    } catch {
      return undefined;
    }
  }

  /**
   * Records a finished task and takes its transitions; an outcome that ends the job takes none and
   * records the job's error. `answer` is the person who finished a manual task, and when.
   */
  complete(id: string, finished: TaskOutcome, answer?: PersonAnswer): void {
    const outcome = this.withinLimits(id, this.withSecretsMasked(id, finished));
    this.ranWith.delete(id);
    if (outcome.endsJob === true) {
      this.recordFinish(id, outcome.finishState, outcome.outgoing, outcome.error, answer);
      this.emitTask('taskFinish', id, outcome.finishState, answer);
      this.addError(id, outcome.error ?? 'The task cannot run');
      return;
    }
    const task = this.task(id);
    this.recordFinish(id, outcome.finishState, outcome.outgoing, outcome.error, answer);
    const sets = outcome.setVariables;
    if (sets !== undefined) for (const name in sets) if (Object.hasOwn(sets, name)) this.setVariable(name, sets[name]);
    if (id !== START) this.emitTask('taskFinish', id, outcome.finishState, answer);
    const targets = this.graph.next(id, outcome.finishState);
    for (const to of targets) this.activate(to);
    if (targets.length > 0) this.deadEnds.delete(id);
    if (targets.length === 0) this.deadEnd(id, outcome.finishState, task);
  }

  /**
   * A task took no transition: the end of a loop iteration, or of a branch. An error that no
   * transition handles fails the job; a success or failure ends only its branch, as workflows that
   * fan out to several evaluations expect (all but the one that holds end there), and the job fails
   * only when nothing else reaches workflow_end (the scheduler's end check).
   */
  private deadEnd(id: string, state: string, task: JobTask): void {
    if (id === END) return;
    const inLoop = this.graph.loopsOf(id).some((loop) => this.job.tasks[loop]?.status === 'running');
    if (inLoop && state !== 'error') return;
    if (state !== 'error') {
      this.deadEnds.add(id);
      return;
    }
    this.addError(id, NO_TRANSITION_MESSAGE);
    if (task.status === 'error') this.log.debug({ jobId: this.job._id, taskId: id }, 'Task error without an error transition');
  }

  /**
   * What the step wrote, as one store update: the changes as a `$set` by store path (changed tasks
   * whole, changed members, and `last_updated`, which the working copy takes too) and the step's
   * events, in order, for the job's outbox; undefined when the step changed nothing.
   */
  takeWrite(): StepWrite | undefined {
    if (this.dirtyTasks.size === 0 && this.dirtyFields.size === 0 && this.events.length === 0) return undefined;
    const set: Record<string, unknown> = {};
    for (const id of this.dirtyTasks) set[`tasks.${id}`] = this.job.tasks[id];
    for (const field of this.dirtyFields) set[field] = this.job[field];
    const { events, steps } = this.takeStep();
    set.last_updated = this.job.last_updated;
    return { set, events, steps };
  }

  /**
   * {@link takeWrite} for a new job, which is stored whole with its first step ({@link toInsert}):
   * the step's events, without the `$set` that nobody reads.
   */
  takeFirstStep(): OutboxEntry[] {
    if (this.dirtyTasks.size === 0 && this.dirtyFields.size === 0 && this.events.length === 0) return [];
    return this.takeStep().events;
  }

  /** Ends the step in the working copy (`last_updated`, the count of steps): its events as outbox entries, and the count before it. */
  private takeStep(): { events: OutboxEntry[]; steps: number } {
    this.job.last_updated = new Date().toISOString();
    this.dirtyTasks.clear();
    this.dirtyFields.clear();
    const queued = this.events;
    this.events = [];
    const events: OutboxEntry[] = [];
    for (const [event, payload] of queued) events.push(outboxEntry(event, payload));
    const steps = this.job.steps ?? 0;
    this.job.steps = steps + 1;
    return { events, steps };
  }

  /**
   * A new job as its first step leaves it, to be stored whole: the working copy, and in its outbox
   * the events it was created with followed by the step's `events`.
   */
  toInsert(events: OutboxEntry[]): JobRecord {
    return merged(this.job, { outbox: [...(this.job.outbox ?? []), ...events] });
  }

  /** The step's queued work, to launch now. */
  takeLaunches(): (() => void)[] {
    return this.launches.splice(0);
  }

  /** Drops what the step produced and did not write (its write failed or was refused): its events and queued work. */
  discardOutputs(): void {
    this.events = [];
    this.launches = [];
  }

  /** Drops everything the step did (it threw): changes, events and queued work. */
  discardAll(): void {
    this.discardOutputs();
    this.dirtyTasks.clear();
    this.dirtyFields.clear();
  }
}

/** Whether two searches found the same secrets. */
function sameSecrets(a: FoundSecrets, b: FoundSecrets): boolean {
  if (a === b) return true;
  if (a.texts.size !== b.texts.size || a.pairs.size !== b.pairs.size) return false;
  for (const text of a.texts) if (!b.texts.has(text)) return false;
  for (const pair of a.pairs) if (!b.pairs.has(pair)) return false;
  return true;
}
