import type { Handler } from '@nap/bus';
import type { WorkflowHandlerContext } from './context';

/** `PATCH /operations-manager/triggers/:id`: the changed trigger, checked as on creation. */
export function updateTrigger(c: WorkflowHandlerContext): Handler<'workflow.updateTrigger'> {
  return async (input, ctx) => ({
    message: 'Successfully updated the requested item',
    data: await c.triggers.update(input.params.id, input.body, ctx.caller),
    metadata: {},
  });
}
