import type { Handler } from '@nap/bus';
import { toPublicJob } from '../domain/job-model';
import type { WorkflowContext } from '../context';
import { visibleJob } from '../context';

/** `POST /operations-manager/jobs/:jobId/pause`: pauses a running job: tasks in flight finish, no new task starts until it is resumed. */
export function pauseJob(svc: WorkflowContext): Handler<'workflow.pauseJob'> {
  return async (input, ctx) => {
    await visibleJob(svc, input.params.jobId, ctx.caller);
    return toPublicJob(await svc.engine.pauseJob(input.params.jobId, ctx.caller.username));
  };
}
