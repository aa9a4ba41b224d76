import type { Handler } from '@nap/bus';
import { loadTask } from '../clients/workflow-jobs';
import type { MopContext } from '../context';
import { diffConfigView, incomingOf, manualTaskAnswer } from '../domain/manual-tasks';

/** `GET /mop/task/diffConfig`: the line diff of the two configurations the task received. */
export function diffConfig(svc: MopContext): Handler<'mop.diffConfig'> {
  return async (input, ctx) => {
    const { job, task } = await loadTask(ctx, input.query);
    return manualTaskAnswer('diffConfig', input.query, task, {
      ...(await diffConfigView(incomingOf(job, task), svc.differ, ctx.deadline)),
      decide: 'Finish the task to accept the change, or with { approved: false } to refuse it',
    });
  };
}
