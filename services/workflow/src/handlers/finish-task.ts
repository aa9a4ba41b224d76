import type { Handler } from '@nap/bus';
import { toPublicJob } from '../domain/job-model';
import type { WorkflowHandlerContext } from './context';
import { visibleJob } from './context';

/** Finishes a waiting manual task; `variables.finish_state` (success or failure) picks the transitions. */
export function finishTask(c: WorkflowHandlerContext): Handler<'workflow.finishTask'> {
  return async (input, ctx) => {
    const job = await visibleJob(c.jobs, input.params.jobId, ctx.caller);
    return toPublicJob(await c.engine.finishTask(job, input.params.taskId, input.body.variables, ctx.caller.username));
  };
}
