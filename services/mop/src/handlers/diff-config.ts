import type { Handler } from '@nap/bus';
import { loadTask } from '../clients/workflow-jobs';
import { diffConfigView, incomingOf, manualTaskAnswer } from '../domain/manual-tasks';

/** `GET /mop/task/diffConfig`: the line diff of the two configurations the task received. */
export function diffConfig(): Handler<'mop.diffConfig'> {
  return async (input, ctx) => {
    const { job, task } = await loadTask(ctx, input.query);
    return manualTaskAnswer('diffConfig', input.query, task, {
      ...diffConfigView(incomingOf(job, task)),
      decide: 'Finish the task to accept the change, or with { approved: false } to refuse it',
    });
  };
}
