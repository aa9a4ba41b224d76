import type { Handler } from '@nap/bus';
import type { WorkflowHandlerContext } from './context';

/** `POST /operations-manager/triggers`: the body is the trigger (or `{ trigger }`). */
export function createTrigger(c: WorkflowHandlerContext): Handler<'workflow.createTrigger'> {
  return async (input, ctx) => ({
    message: 'Successfully created the requested item',
    data: await c.triggers.create(input.body, ctx.caller),
    metadata: {},
  });
}
