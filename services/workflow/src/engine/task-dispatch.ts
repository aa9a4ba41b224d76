import { SYSTEM_CALLER, hasCode, isAppError } from '@nap/contracts';
import type { Caller } from '@nap/contracts';
import type { CallInput } from '@nap/bus';
import type { Context, Logger } from '@nap/telemetry';
import { INLINE_BUILTINS } from '../domain/builtins';
import { BUILTINS } from './builtins';
import { cloneJson } from '../domain/builtins/types';
import type { JobTask } from '../domain/job-model';
import type { ReferenceScope } from '../domain/references';
import { errorMessage, sleep } from '@nap/util';
import { errorOutcome } from '../domain/task-outcome';
import type { TaskOutcome } from '../domain/task-outcome';
import {
  OUTSIDE_TASK_OPERATION,
  callInputFor,
  finishAt,
  operationFor,
  outgoingFrom,
  outgoingOf,
  pinFor,
  resultOf,
} from '../domain/task-routing';
import { logUnresolved } from './job-state';
import { traceOfJob } from './job-trace';
import type { JobState, RunStep } from './job-state';
import type { Retries } from './retries';

/** Inline tasks per step at most, so that a loop of them never holds the event loop. */
const INLINE_PER_STEP = 64;

const NEVER_ABORTED = new AbortController().signal;

/** What task dispatch needs from the engine. */
export interface DispatchHost {
  /**
   * Calls the catalog operation named at run time by a task (`app` and `name`) as the given caller,
   * in the job's trace (the context its CLIENT span is a child of; none: the active context);
   * answers its body, which the task's outgoing names pick from; throws AppError.
   */
  call(operationId: string, input: CallInput, caller: Caller, trace?: Context): Promise<unknown>;
  log: Logger;
  /** How many times faster than real time waits pass (1: real time). */
  readonly timeScale: number;
  /** How long a call that reached no service (SERVICE_UNAVAILABLE) is tried again before the task fails, ms. */
  unavailableRetryMs: number;
}

/** First wait before calling again an operation that no service answered; doubled up to {@link MAX_UNAVAILABLE_WAIT_MS}. */
const FIRST_UNAVAILABLE_WAIT_MS = 200;
const MAX_UNAVAILABLE_WAIT_MS = 2_000;

/**
 * Runs the tasks of a job where they live: side-effect-free built-ins ({@link INLINE_BUILTINS})
 * within the step, other built-ins and catalog operations (`app` → service, `name` → operation,
 * called as the job's initiator with the resolved incoming values) after the step's store write.
 * Each execution in flight holds a token: an outcome whose token was dropped (the job ended, the
 * task was canceled) is ignored.
 */
export class TaskDispatcher {
  private readonly tokens = new Map<string, symbol>();
  private readonly aborts = new Map<string, AbortController>();
  private inlineBudget = INLINE_PER_STEP;
  /**
   * The trace the job's task calls belong to, read once from the job (see JobRecord.traceContext):
   * processes run without a context manager, so it is handed to each call.
   */
  private readonly trace: Context | undefined;

  constructor(
    private readonly state: JobState,
    private readonly retries: Retries,
    private readonly step: RunStep,
    private readonly host: DispatchHost,
  ) {
    this.trace = traceOfJob(state.job.traceContext);
  }

  /** A new step may run {@link INLINE_PER_STEP} inline tasks again. */
  newStep(): void {
    this.inlineBudget = INLINE_PER_STEP;
  }

  /** Runs a started task with its resolved incoming values: its pin when the job has one, inline when it can, otherwise once the step is written. */
  run(id: string, task: JobTask, incoming: Record<string, unknown>): void {
    const pin = pinFor(this.state.job.pinned, id, task);
    if (pin !== undefined) {
      task.pinned = true;
      this.state.complete(id, { finishState: 'success', outgoing: cloneJson(pin) });
      return;
    }
    const name = String(task.name);
    if (task.app === 'WorkFlowEngine' && Object.hasOwn(INLINE_BUILTINS, name) && this.inlineBudget > 0) {
      this.inlineBudget -= 1;
      this.runInline(id, task, name, incoming);
      return;
    }
    this.launch(id, task, incoming);
  }

  /** True while the execution of the task is in flight. */
  isInFlight(id: string): boolean {
    return this.tokens.has(id);
  }

  /** Stops the execution of a task and forgets its outcome (the job ended). */
  cancel(id: string): void {
    this.aborts.get(id)?.abort();
    this.tokens.delete(id);
  }

  /** Stops every execution in flight (the runner stops). */
  abortAll(): void {
    for (const a of this.aborts.values()) a.abort();
    this.aborts.clear();
  }

  private runInline(id: string, task: JobTask, name: string, incoming: Record<string, unknown>): void {
    const startedAt = task.metrics?.start_time ?? Date.now();
    let outcome: TaskOutcome;
    try {
      const builtin = INLINE_BUILTINS[name];
      outcome = builtin
        ? this.state.resolving(id, (scope) =>
            builtin({ incoming, scope, startedAt, signal: NEVER_ABORTED, timeScale: this.host.timeScale }),
          )
        : errorOutcome(`WorkFlowEngine has no built-in task "${name}"`);
    } catch (err) {
      outcome = errorOutcome(errorMessage(err));
    }
    if (this.retries.retryIfAsked(id, task, outcome)) return;
    this.state.complete(id, outcome);
  }

  /** Queues the execution of a task to begin after the step's store write; its outcome is applied in a later step. */
  private launch(id: string, task: JobTask, incoming: Record<string, unknown>): void {
    const token = Symbol(id);
    this.tokens.set(id, token);
    const startedAt = task.metrics?.start_time ?? Date.now();
    const job = this.state.job;
    const scope: ReferenceScope = { variables: cloneJson(job.variables), tasks: job.tasks, unresolved: [] };
    const caller = job.runAs ?? SYSTEM_CALLER;
    this.state.later(() => {
      const abort = new AbortController();
      this.aborts.set(id, abort);
      this.execute(task, incoming, scope, caller, startedAt, abort.signal)
        .then((outcome) => {
          if (this.aborts.get(id) === abort) this.aborts.delete(id);
          logUnresolved(this.host.log, job, id, scope.unresolved ?? []);
          void this.step(() => this.apply(id, token, outcome));
        })
        .catch((err: unknown) => this.host.log.error({ err, jobId: job._id, taskId: id }, 'Task execution failed unexpectedly'));
    });
  }

  private async execute(
    task: JobTask,
    incoming: Record<string, unknown>,
    scope: ReferenceScope,
    caller: Caller,
    startedAt: number,
    signal: AbortSignal,
  ): Promise<TaskOutcome> {
    try {
      const name = String(task.name ?? '');
      const builtin = task.app === 'WorkFlowEngine' && Object.hasOwn(BUILTINS, name) ? BUILTINS[name] : undefined;
      if (builtin) return await builtin({ incoming, scope, startedAt, signal, timeScale: this.host.timeScale });
      const operationId = operationFor(task);
      const body = await this.callWhenAnswered(operationId, callInputFor(operationId, incoming, task), caller, signal);
      const until = finishAt(operationId, body);
      if (until !== undefined) {
        await sleep(until - Date.now(), signal);
        signal.throwIfAborted();
      }
      const names = Object.keys(task.variables?.outgoing ?? {});
      return {
        finishState: 'success',
        outgoing: operationId === OUTSIDE_TASK_OPERATION ? outgoingFrom(names, resultOf(body)) : outgoingOf(operationId, names, body),
      };
    } catch (err) {
      if (signal.aborted) return errorOutcome('The task was stopped');
      // a missing asset is not a failure the workflow's error path can handle: the job ends, naming it
      if (hasCode(err, 'TRANSFORMATION_NOT_FOUND') && isAppError(err))
        return { ...errorOutcome(`${err.code}: ${err.message}`), endsJob: true };
      if (hasCode(err, 'INTEGRATION_CALL_FAILED') && isAppError(err)) {
        // the system's answer (status, headers, body) is the task's result, so the error transition can read it
        return errorOutcome(`${err.code}: ${err.message}`, outgoingFrom(Object.keys(task.variables?.outgoing ?? {}), err.details ?? null));
      }
      return errorOutcome(isAppError(err) ? `${err.code}: ${err.message}` : errorMessage(err));
    }
  }

  /**
   * Calls an operation; while no service answers it (SERVICE_UNAVAILABLE: the request reached no
   * instance, so nothing ran), calls it again with a growing wait for up to `unavailableRetryMs`. A
   * service restarting, or the platform still starting when the engine resumes its jobs, does not
   * fail the task.
   */
  private async callWhenAnswered(operationId: string, input: CallInput, caller: Caller, signal: AbortSignal): Promise<unknown> {
    const deadline = Date.now() + this.host.unavailableRetryMs;
    for (let wait = FIRST_UNAVAILABLE_WAIT_MS; ; wait = Math.min(MAX_UNAVAILABLE_WAIT_MS, wait * 2)) {
      try {
        return await this.host.call(operationId, input, caller, this.trace);
      } catch (err) {
        if (!hasCode(err, 'SERVICE_UNAVAILABLE') || signal.aborted || Date.now() + wait > deadline) throw err;
        this.host.log.debug({ operationId, waitMs: wait }, 'No service answers the operation of a task yet; calling again');
        await sleep(wait, signal);
        signal.throwIfAborted();
      }
    }
  }

  /** Applies the outcome of an execution unless the task moved on meanwhile. */
  private apply(id: string, token: symbol, outcome: TaskOutcome): void {
    const task = this.state.job.tasks[id];
    if (task === undefined || this.tokens.get(id) !== token || task.status !== 'running') return;
    this.tokens.delete(id);
    if (this.retries.retryIfAsked(id, task, outcome)) return;
    this.state.complete(id, outcome);
  }
}
