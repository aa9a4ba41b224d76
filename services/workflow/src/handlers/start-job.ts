import type { Handler } from '@nap/bus';
import { startWithOptions } from '../context';
import type { WorkflowContext } from '../context';
import { toPublicJob } from '../domain/job-model';

/** `POST /operations-manager/jobs/start`: starts a job of the named workflow; the job in the envelope. */
export function startJob(svc: WorkflowContext): Handler<'workflow.startJob'> {
  return async (input, ctx) => ({
    message: 'Successfully created the requested item',
    data: await startWithOptions(svc, ctx, input.body.workflow, input.body.options ?? {}, toPublicJob),
    metadata: {},
  });
}
