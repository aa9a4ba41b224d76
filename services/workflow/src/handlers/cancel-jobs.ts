import { isAppError } from '@nap/contracts';
import type { Handler } from '@nap/bus';
import type { AuditPart, CancelJobsResult } from '@nap/contracts';
import type { WorkflowContext } from '../context';
import { visibleJob } from '../context';

/**
 * `POST /operations-manager/jobs/cancel`: cancels jobs, reporting each: a job that already ended, is
 * unknown or hidden is reported with success false. The audit trail records each job: its name, and
 * the status it left when it was canceled.
 */
export function cancelJobs(svc: WorkflowContext): Handler<'workflow.cancelJobs'> {
  return async (input, ctx) => {
    const results: CancelJobsResult['results'] = [];
    const each: NonNullable<AuditPart['each']> = [];
    for (const jobId of input.body.jobIds) {
      try {
        const job = await visibleJob(svc, jobId, ctx.caller);
        const canceled = await svc.engine.cancelJob(jobId, ctx.caller.username);
        each.push({
          target: { kind: 'job', id: jobId, name: job.name },
          ...(canceled ? { changes: [{ member: 'status', before: job.status, after: 'canceled' }] } : {}),
        });
        if (canceled) results.push({ jobId, success: true, message: `Job "${jobId}" canceled` });
        else {
          // a job that a request at the same time canceled (or that ended meanwhile) was active when read: say what it is now
          const status = (await svc.jobs.statusOf(jobId)) ?? job.status;
          results.push({ jobId, success: false, message: `Job "${jobId}" is ${status}; only running or paused jobs can be canceled` });
        }
      } catch (err) {
        if (!isAppError(err)) throw err;
        results.push({ jobId, success: false, message: err.message });
      }
    }
    ctx.audit({ each });
    return { results };
  };
}
