import type { Handler } from '@nap/bus';
import { toPublicJob } from '../domain/job-model';
import type { WorkflowContext } from '../context';
import { visibleJob } from '../context';

/** Bus side of `GET /operations-manager/jobs/:jobId/events`: the job as it is now, after the access check; the gateway streams the rest. */
export function watchJobEvents(svc: WorkflowContext): Handler<'workflow.watchJobEvents'> {
  return async (input, ctx) => toPublicJob(await visibleJob(svc, input.params.jobId, ctx.caller));
}
