import type { Handler } from '@nap/bus';
import { toPublicJob } from '../domain/job-model';
import type { WorkflowContext } from '../context';
import { visibleJob } from '../context';

/** `GET /operations-manager/jobs/:jobId`: the job in the envelope existing clients poll. */
export function getJob(svc: WorkflowContext): Handler<'workflow.getJob'> {
  return async (input, ctx) => ({
    message: 'Successfully retrieved item',
    data: toPublicJob(await visibleJob(svc, input.params.jobId, ctx.caller)),
    metadata: {},
  });
}
