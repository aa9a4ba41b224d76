import type { Handler } from '@nap/bus';
import { loadTask } from '../clients/workflow-jobs';
import { incomingOf, manualTaskAnswer, templateResultsView } from '../domain/manual-tasks';

/** `GET /mop/task/viewTemplateResults`: per device, whether a template run passed and which rules failed. */
export function viewTemplateResults(): Handler<'mop.viewTemplateResults'> {
  return async (input, ctx) => {
    const { job, task } = await loadTask(ctx, input.query);
    const incoming = incomingOf(job, task);
    return manualTaskAnswer('viewTemplateResults', input.query, task, {
      ...templateResultsView(incoming.mop_template_results ?? incoming.results ?? incoming.result),
      decide: 'Finish the task once reviewed',
    });
  };
}
