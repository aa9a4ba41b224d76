import { END, START } from '../domain/graph';
import { NO_TRANSITION_MESSAGE, isManual } from '../domain/job-model';
import type { JobRecord } from '../domain/job-model';
import { resolveTaskIncoming } from '../domain/references';
import { oversizedValue, valueTooLargeMessage } from '../domain/job-values';
import { errorMessage, merged } from '@nap/util';
import { errorOutcome } from '../domain/task-outcome';
import type { ChildJobs } from './child-jobs';
import type { JobState } from './job-state';
import type { Loops } from './loops';
import type { TaskDispatcher } from './task-dispatch';

/** Rounds of starting tasks per step at most: a guard against a graph that never settles. */
const MAX_ROUNDS = 10_000;

/**
 * Decides what runs next in a job: starts every pending task whose join is satisfied (a task with
 * several incoming transitions starts once no running or pending task can still reach it), hands
 * it to what runs it (manual wait, forEach, childJob, or task dispatch), moves loops on, and ends
 * the job: complete at workflow_end, error when it is failing and nothing is in flight, or when
 * nothing runs or waits any more.
 */
export class Scheduler {
  constructor(
    private readonly state: JobState,
    private readonly dispatch: TaskDispatcher,
    private readonly loops: Loops,
    private readonly children: ChildJobs,
    /** Tells the parent of a job that it ended (after the step's write). */
    private readonly notifyParent: (job: JobRecord) => void,
  ) {}

  /** Starts every ready task, advances loops until nothing moves, then ends the job if it can go no further. */
  schedule(): void {
    const { state } = this;
    if (state.finished) return;
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      let progressed = false;
      if (state.job.status === 'running' && !state.isFailing()) {
        for (const id of this.readyTasks()) {
          this.startTask(id);
          progressed = true;
          if (state.finished) return;
        }
      }
      if (this.loops.advance()) progressed = true;
      if (!progressed) break;
    }
    this.checkEnd();
  }

  private active(): { running: string[]; pending: string[] } {
    const running: string[] = [];
    const pending: string[] = [];
    const { job, graph } = this.state;
    for (const id of graph.ids) {
      const status = job.tasks[id]?.status;
      if (status === 'running') running.push(id);
      else if (status === 'pending') pending.push(id);
    }
    return { running, pending };
  }

  /** Pending tasks that nothing running or pending can still reach (retries not due wait). */
  private readyTasks(): string[] {
    const { running, pending: all } = this.active();
    const t = Date.now();
    const pending = all.filter((id) => {
      const retryAt = this.state.job.tasks[id]?.retryAt;
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
    const { graph, job } = this.state;
    if (!graph.reachable(other).has(target)) return false;
    // a running forEach does not block the tasks of its own body
    if (job.tasks[other]?.name === 'forEach' && graph.body(other).has(target)) return false;
    return true;
  }

  private startTask(id: string): void {
    const { state } = this;
    const task = state.task(id);
    task.status = 'running';
    task.metrics = { start_time: Date.now(), server_id: state.serverId };
    delete task.finishRequest;
    if (task.variables) task.variables.error = '';
    state.markTask(id);
    if (id === START) {
      state.complete(id, { finishState: 'success', outgoing: {} });
      return;
    }
    if (id === END) {
      state.recordFinish(id, 'success', {});
      this.finishJob('complete');
      return;
    }
    state.emitTask('taskStart', id);
    let incoming: Record<string, unknown>;
    try {
      incoming = state.resolving(id, (scope) => resolveTaskIncoming(task, scope));
    } catch (err) {
      state.complete(id, errorOutcome(errorMessage(err)));
      return;
    }
    state.started(id, incoming);
    const big = oversizedValue(incoming, state.valueLimits.maxBytes);
    if (big !== undefined) {
      state.complete(
        id,
        errorOutcome(valueTooLargeMessage(`the incoming value "${big.name}" of task "${id}"`, big.bytes, state.valueLimits.maxBytes)),
      );
      return;
    }
    if (isManual(task)) {
      if (task.variables) task.variables.resolved = incoming;
      return;
    }
    if (task.app === 'WorkFlowEngine' && task.name === 'forEach') {
      this.loops.start(id, incoming);
      return;
    }
    if (task.app === 'WorkFlowEngine' && task.name === 'childJob') {
      this.children.start(id, incoming);
      return;
    }
    this.dispatch.run(id, task, incoming);
  }

  /** Ends the job when nothing runs or waits: complete was handled at workflow_end, so this is an error. */
  private checkEnd(): void {
    const { state } = this;
    if (state.finished || state.job.status !== 'running') return;
    const { running, pending } = this.active();
    if (state.isFailing()) {
      // stop once no automatic task is still in flight; waiting manual tasks and child jobs are canceled
      if (!running.some((id) => this.dispatch.isInFlight(id))) this.finishJob('error');
      return;
    }
    if (running.length === 0 && pending.length === 0) {
      // workflow_end was not reached: the branches that ended without a transition are why
      const deadEnds = [...state.deadEnds].filter((id) => state.job.tasks[id]?.status === 'complete');
      for (const id of deadEnds.length > 0 ? deadEnds : [this.lastFinished()]) state.addError(id, NO_TRANSITION_MESSAGE);
      this.finishJob('error');
    }
  }

  /** The task that finished last (workflow_start when none did). */
  private lastFinished(): string {
    let best = START;
    let bestTime = -1;
    for (const [id, task] of Object.entries(this.state.job.tasks)) {
      const end = task.metrics?.end_time ?? -1;
      if (end >= bestTime && (task.status === 'complete' || task.status === 'error')) {
        best = id;
        bestTime = end;
      }
    }
    return best;
  }

  /** Ends the job: tasks still running are canceled, the job's end is recorded and announced, its parent told. */
  private finishJob(status: 'complete' | 'error'): void {
    const { state } = this;
    const { job } = state;
    const t = Date.now();
    for (const [id, task] of Object.entries(job.tasks)) {
      if (task.status === 'running' && id !== END) {
        task.status = 'canceled';
        task.metrics = merged(task.metrics, { end_time: t, finish_state: 'canceled' });
        state.markTask(id);
        this.dispatch.cancel(id);
      }
    }
    job.status = status;
    job.metrics = merged(job.metrics, { end_time: t, run_time: t - (job.metrics?.start_time ?? t), finish_state: status });
    state.markField('status');
    state.markField('metrics');
    state.finished = true;
    if (status === 'complete') state.emitJob('jobComplete', { finishState: 'complete' });
    else state.emitJob('jobError', { finishState: 'error', error: job.error });
    state.later(() => this.notifyParent(job));
  }
}
