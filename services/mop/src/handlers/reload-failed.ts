import type { Handler } from '@nap/bus';
import { loadTask } from '../clients/workflow-jobs';
import { incomingOf, manualTaskAnswer } from '../domain/manual-tasks';

/** `GET /mop/task/reloadFailed`: why a device reload failed, and the choices left. */
export function reloadFailed(): Handler<'mop.reloadFailed'> {
  return async (input, ctx) => {
    const { job, task } = await loadTask(ctx, input.query);
    return manualTaskAnswer('reloadFailed', input.query, task, {
      incoming: incomingOf(job, task),
      error: task.variables?.error ?? null,
      jobErrors: job.error ?? [],
      options: ['retry', 'continue', 'abort'],
      decide: 'Finish the task with variables { action: "retry" | "continue" | "abort" }',
    });
  };
}
