import type { Handler } from '@nap/bus';
import { rawReply } from '@nap/bus';
import { loadTask } from '../clients/workflow-jobs';
import { manualTaskAnswer, reviewSummaryView } from '../domain/manual-tasks';

/** `GET /mop/task/reviewSummary`: the job's summary to review, or with `download=true` the job data as a JSON attachment. */
export function reviewSummary(): Handler<'mop.reviewSummary'> {
  return async (input, ctx) => {
    const { job, task } = await loadTask(ctx, input.query);
    if (input.query.download === true)
      return rawReply(JSON.stringify(job, null, 2), 'application/json', { filename: `job-${job._id}.json` });
    return manualTaskAnswer('reviewSummary', input.query, task, {
      ...reviewSummaryView(job),
      decide: 'Finish the task once reviewed; add download=true to this route for the job data as JSON',
    });
  };
}
