import type { Handler } from '@nap/bus';
import { toPublicJob } from '../domain/job-model';
import type { WorkflowHandlerContext } from './context';
import { visibleJob } from './context';

/** Operation 15: runs a task of a job in error again with replacement variables; the job goes on from there. */
export function retryTask(c: WorkflowHandlerContext): Handler<'workflow.retryTask'> {
  return async (input, ctx) => {
    await visibleJob(c.jobs, input.params.jobId, ctx.caller);
    return toPublicJob(await c.engine.retryTask(input.params.jobId, input.body.taskId, input.body.variables, ctx.caller.username));
  };
}
