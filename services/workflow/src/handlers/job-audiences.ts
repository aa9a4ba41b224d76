import type { Handler } from '@nap/bus';
import { jobAudience } from '../domain/job-model';
import type { WorkflowContext } from '../context';

/** Bus-only: who may see each of the jobs (the gateway's event streams decide per group set, not per client). */
export function jobAudiences(svc: WorkflowContext): Handler<'workflow.jobAudiences'> {
  return async (input) => ({ jobs: (await svc.jobs.accessOf(input.body.jobIds)).map(jobAudience) });
}
