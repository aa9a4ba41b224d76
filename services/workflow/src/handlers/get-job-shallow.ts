import type { Handler } from '@nap/bus';
import { toShallowJob } from '../domain/job-model';
import type { WorkflowContext } from '../context';
import { visibleJob } from '../context';

/** `GET /workflow_engine/getJobShallow/:job_data`: the job without the tasks' app, incoming, outgoing and error data. */
export function getJobShallow(svc: WorkflowContext): Handler<'workflow.getJobShallow'> {
  return async (input, ctx) => toShallowJob(await visibleJob(svc, input.params.job_data, ctx.caller));
}
