import type { Handler } from '@nap/bus';
import { canSeeJob } from '../domain/job-model';
import type { WorkflowContext } from '../context';

/** Bus-only: which of the jobs the caller may see (the gateway's event stream asks for jobs it meets). */
export function visibleJobs(svc: WorkflowContext): Handler<'workflow.visibleJobs'> {
  return async (input, ctx) => {
    const found = await svc.jobs.accessOf(input.body.jobIds);
    return { jobIds: found.filter((job) => canSeeJob(job, ctx.caller)).map((job) => job._id) };
  };
}
