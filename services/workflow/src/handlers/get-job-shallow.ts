import type { Handler } from '@nap/bus';
import { toShallowJob } from '../domain/job-model';
import type { WorkflowHandlerContext } from './context';
import { visibleJob } from './context';

/** Operation 16: the job without the tasks' app, incoming, outgoing and error data. */
export function getJobShallow(c: WorkflowHandlerContext): Handler<'workflow.getJobShallow'> {
  return async (input, ctx) => toShallowJob(await visibleJob(c.jobs, input.params.job_data, ctx.caller));
}
