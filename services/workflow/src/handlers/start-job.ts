import type { Handler } from '@nap/bus';
import { toPublicJob } from '../domain/job-model';
import type { WorkflowHandlerContext } from './context';
import { startWithOptions } from './start-job-with-options';

/** `POST /operations-manager/jobs/start`: starts a job of the named workflow; the job in the envelope. */
export function startJob(c: WorkflowHandlerContext): Handler<'workflow.startJob'> {
  return async (input, ctx) => ({
    message: 'Successfully created the requested item',
    data: toPublicJob(await startWithOptions(c, ctx, input.body.workflow, input.body.options ?? {})),
    metadata: {},
  });
}
