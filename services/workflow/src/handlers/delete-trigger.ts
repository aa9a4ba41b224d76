import type { Handler } from '@nap/bus';
import type { WorkflowHandlerContext } from './context';

/** `DELETE /operations-manager/triggers/:id`. */
export function deleteTrigger(c: WorkflowHandlerContext): Handler<'workflow.deleteTrigger'> {
  return async (input) => ({
    message: 'Successfully deleted the requested item',
    data: { deleted: await c.triggers.delete(input.params.id) },
    metadata: {},
  });
}
