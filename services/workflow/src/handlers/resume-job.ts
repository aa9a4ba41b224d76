import type { Handler } from '@nap/bus';
import { toPublicJob } from '../domain/job-model';
import type { WorkflowHandlerContext } from './context';
import { visibleJob } from './context';

/** Resumes a paused job. */
export function resumeJob(c: WorkflowHandlerContext): Handler<'workflow.resumeJob'> {
  return async (input, ctx) => {
    await visibleJob(c.jobs, input.params.jobId, ctx.caller);
    return toPublicJob(await c.engine.resumeJob(input.params.jobId, ctx.caller.username));
  };
}
