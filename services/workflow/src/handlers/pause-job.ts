import type { Handler } from '@nap/bus';
import { toPublicJob } from '../domain/job-model';
import type { WorkflowHandlerContext } from './context';
import { visibleJob } from './context';

/** Pauses a running job: tasks in flight finish, no new task starts until it is resumed. */
export function pauseJob(c: WorkflowHandlerContext): Handler<'workflow.pauseJob'> {
  return async (input, ctx) => {
    await visibleJob(c.jobs, input.params.jobId, ctx.caller);
    return toPublicJob(await c.engine.pauseJob(input.params.jobId, ctx.caller.username));
  };
}
