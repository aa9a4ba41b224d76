import type { Handler } from '@nap/bus';
import { reply } from '@nap/bus';
import { archiveView, cutoffOf, statusesOf } from '../domain/job-archive';
import type { WorkflowContext } from '../context';

/** `POST /operations-manager/jobs/archive`: a new archive of finished root jobs ended before `before`, answered 202 while it fills. */
export function archiveJobs(svc: WorkflowContext): Handler<'workflow.archiveJobs'> {
  return async (input, ctx) => {
    const archive = await svc.archiver.request({
      before: cutoffOf(input.body.before),
      statuses: statusesOf(input.body.status),
      requestedBy: ctx.caller.username,
    });
    return reply(202, archiveView(archive));
  };
}
