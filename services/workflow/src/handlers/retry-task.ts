import type { Handler } from '@nap/bus';
import { toPublicJob } from '../domain/job-model';
import type { WorkflowContext } from '../context';
import { visibleJob } from '../context';

/** `POST /workflow_engine/jobs/:jobId/retryTask`: runs a task of a job in error again with replacement variables; the job goes on from there. */
export function retryTask(svc: WorkflowContext): Handler<'workflow.retryTask'> {
  return async (input, ctx) => {
    await visibleJob(svc, input.params.jobId, ctx.caller);
    return toPublicJob(await svc.engine.retryTask(input.params.jobId, input.body.taskId, input.body.variables, ctx.caller.username));
  };
}
