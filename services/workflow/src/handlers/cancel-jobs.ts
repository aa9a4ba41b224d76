import { isAppError } from '@nap/contracts';
import type { Handler } from '@nap/bus';
import type { CancelJobsResult } from '@nap/contracts';
import type { WorkflowContext } from '../context';
import { visibleJob } from '../context';

/** `POST /operations-manager/jobs/cancel`: cancels jobs, reporting each: a job that already ended, is unknown or hidden is reported with success false. */
export function cancelJobs(svc: WorkflowContext): Handler<'workflow.cancelJobs'> {
  return async (input, ctx) => {
    const results: CancelJobsResult['results'] = [];
    for (const jobId of input.body.jobIds) {
      try {
        const job = await visibleJob(svc, jobId, ctx.caller);
        const canceled = await svc.engine.cancelJob(jobId, ctx.caller.username);
        results.push(
          canceled
            ? { jobId, success: true, message: `Job "${jobId}" canceled` }
            : { jobId, success: false, message: `Job "${jobId}" is ${job.status}; only running or paused jobs can be canceled` },
        );
      } catch (err) {
        if (!isAppError(err)) throw err;
        results.push({ jobId, success: false, message: err.message });
      }
    }
    return { results };
  };
}
