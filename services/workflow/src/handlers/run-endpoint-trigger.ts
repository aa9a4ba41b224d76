import type { Handler } from '@nap/bus';
import { toPublicJob } from '../domain/job-model';
import type { WorkflowHandlerContext } from './context';

/** `POST /operations-manager/triggers/endpoint/:routeName`: the job the trigger started, in the envelope. */
export function runEndpointTrigger(c: WorkflowHandlerContext): Handler<'workflow.runEndpointTrigger'> {
  return async (input, ctx) => ({
    message: 'Successfully created the requested item',
    data: toPublicJob(await c.triggers.runEndpoint(input.params.routeName, input.body, ctx.caller)),
    metadata: {},
  });
}
