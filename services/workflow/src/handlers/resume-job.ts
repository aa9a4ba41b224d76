import type { Handler } from '@nap/bus';
import { toPublicJob } from '../domain/job-model';
import type { WorkflowContext } from '../context';
import { visibleJob } from '../context';

/** `POST /operations-manager/jobs/:jobId/resume`: resumes a paused job. */
export function resumeJob(svc: WorkflowContext): Handler<'workflow.resumeJob'> {
  return async (input, ctx) => {
    await visibleJob(svc, input.params.jobId, ctx.caller);
    return toPublicJob(await svc.engine.resumeJob(input.params.jobId, ctx.caller.username));
  };
}
