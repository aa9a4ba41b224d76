import type { Handler } from '@nap/bus';
import { toPublicJob } from '../domain/job-model';
import type { WorkflowContext } from '../context';
import { visibleJob } from '../context';

/** `POST /operations-manager/jobs/:jobId/tasks/:taskId/finish`: finishes a waiting manual task; `variables.finish_state` (success or failure) picks the transitions. */
export function finishTask(svc: WorkflowContext): Handler<'workflow.finishTask'> {
  return async (input, ctx) => {
    const job = await visibleJob(svc, input.params.jobId, ctx.caller);
    return toPublicJob(await svc.engine.finishTask(job, input.params.taskId, input.body.variables, ctx.caller.username));
  };
}
