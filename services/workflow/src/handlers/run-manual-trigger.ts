import type { Handler } from '@nap/bus';
import { toPublicJob } from '../domain/job-model';
import type { WorkflowHandlerContext } from './context';

/** `POST /operations-manager/triggers/manual/:id/run`: the job the trigger started, in the envelope. */
export function runManualTrigger(c: WorkflowHandlerContext): Handler<'workflow.runManualTrigger'> {
  return async (input, ctx) => ({
    message: 'Successfully created the requested item',
    data: toPublicJob(await c.triggers.runManual(input.params.id, input.body.formData ?? {}, ctx.caller)),
    metadata: {},
  });
}
