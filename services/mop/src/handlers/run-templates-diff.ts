import type { Handler } from '@nap/bus';
import { loadTask } from '../clients/workflow-jobs';
import type { MopContext } from '../context';
import { incomingOf, manualTaskAnswer, templatesDiffView } from '../domain/manual-tasks';

/** `GET /mop/task/runTemplatesDiff`: the difference of each command's output between two template runs, per device. */
export function runTemplatesDiff(svc: MopContext): Handler<'mop.runTemplatesDiff'> {
  return async (input, ctx) => {
    const { job, task } = await loadTask(ctx, input.query);
    const incoming = incomingOf(job, task);
    return manualTaskAnswer('runTemplatesDiff', input.query, task, {
      ...(await templatesDiffView(incoming.pre, incoming.post, svc.differ, ctx.deadline)),
      decide: 'Finish the task to accept the differences',
    });
  };
}
