import type { Handler } from '@nap/bus';
import type { WorkflowHandlerContext } from './context';

/** `DELETE /operations-manager/triggers/action/:id`: every trigger of an automation. */
export function deleteTriggersByAction(c: WorkflowHandlerContext): Handler<'workflow.deleteTriggersByAction'> {
  return async (input) => ({
    message: 'Successfully deleted the requested items',
    data: { deleted: await c.triggers.deleteByAction(input.params.id) },
    metadata: {},
  });
}
