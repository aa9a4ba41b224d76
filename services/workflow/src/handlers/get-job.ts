import type { Handler } from '@nap/bus';
import { toPublicJob } from '../domain/job-model';
import type { WorkflowHandlerContext } from './context';
import { visibleJob } from './context';

/** `GET /operations-manager/jobs/:jobId`: the job in the envelope existing clients poll. */
export function getJob(c: WorkflowHandlerContext): Handler<'workflow.getJob'> {
  return async (input, ctx) => ({
    message: 'Successfully retrieved item',
    data: toPublicJob(await visibleJob(c.jobs, input.params.jobId, ctx.caller)),
    metadata: {},
  });
}
