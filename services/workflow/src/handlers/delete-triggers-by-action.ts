import type { Handler } from '@nap/bus';
import { deleteTriggersOf } from '../context';
import type { WorkflowContext } from '../context';
import { assertAutomationAccess } from '../domain/automations';

/** `DELETE /operations-manager/triggers/action/:id`: every trigger of an automation. */
export function deleteTriggersByAction(svc: WorkflowContext): Handler<'workflow.deleteTriggersByAction'> {
  return async (input, ctx) => {
    // an automation that no longer exists may still have triggers to clear away
    const automation = await svc.automations.findAutomation(input.params.id);
    if (automation !== null) assertAutomationAccess(automation, ctx.caller, 'write');
    return {
      message: 'Successfully deleted the requested items',
      data: { deleted: await deleteTriggersOf(svc, input.params.id) },
      metadata: {},
    };
  };
}
