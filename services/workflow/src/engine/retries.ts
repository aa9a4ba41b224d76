import type { JobTask } from '../domain/job-model';
import type { TaskOutcome } from '../domain/task-outcome';
import type { JobState, RunStep } from './job-state';

/**
 * Automatic retries by a task's `retrySettings`: while `count` < `limit` and the task finished in
 * one of `state` (error by default), it goes back to pending with `retryAt` = now + `delay` ms, and
 * a timer makes it ready then. The retry time is stored, so a job resumed elsewhere keeps waiting.
 */
export class Retries {
  constructor(
    private readonly state: JobState,
    private readonly step: RunStep,
  ) {}

  /** Sends the task back for a retry when its settings ask for one; true when it did. */
  retryIfAsked(id: string, task: JobTask, outcome: TaskOutcome): boolean {
    const settings = task.retrySettings;
    if (!settings?.autoRetry) return false;
    const states = Array.isArray(settings.state) && settings.state.length > 0 ? settings.state : ['error'];
    const count = settings.count ?? 0;
    if (!states.includes(outcome.finishState) || count >= (settings.limit ?? 0)) return false;
    // a new object: the job shares its tasks' settings with the workflow it was made from (see newJobRecord)
    task.retrySettings = { ...settings, count: count + 1 };
    task.status = 'pending';
    task.retryAt = Date.now() + Math.max(0, settings.delay ?? 0);
    // the error it failed with shows until the retry runs: masked as a recorded one is
    if (outcome.error !== undefined && task.variables) task.variables.error = this.state.withSecretsMasked(id, outcome).error;
    this.state.markTask(id);
    this.wakeAt(id, Math.max(0, settings.delay ?? 0));
    return true;
  }

  /** Sets the timers of the tasks that wait for a retry (a job resumed on this engine). */
  resumeTimers(): void {
    const t = Date.now();
    for (const [id, task] of Object.entries(this.state.job.tasks)) {
      if (task.status === 'pending' && typeof task.retryAt === 'number') this.wakeAt(id, Math.max(0, task.retryAt - t));
    }
  }

  /** Makes the task ready when its retry is due. */
  private wakeAt(id: string, waitMs: number): void {
    const timer = setTimeout(() => {
      void this.step(() => {
        const current = this.state.job.tasks[id];
        if (current?.status === 'pending' && current.retryAt !== undefined) {
          delete current.retryAt;
          this.state.markTask(id);
        }
      });
    }, waitMs);
    timer.unref();
  }
}
