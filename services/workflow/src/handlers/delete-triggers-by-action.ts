import type { Handler } from '@nap/bus';
import { deleteTriggersOf } from '../context';
import type { WorkflowContext } from '../context';

/** `DELETE /operations-manager/triggers/action/:id`: every trigger of an automation. */
export function deleteTriggersByAction(svc: WorkflowContext): Handler<'workflow.deleteTriggersByAction'> {
  return async (input) => ({
    message: 'Successfully deleted the requested items',
    data: { deleted: await deleteTriggersOf(svc, input.params.id) },
    metadata: {},
  });
}
