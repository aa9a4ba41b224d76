import { AppError } from '@nap/contracts';
import type { Handler } from '@nap/bus';
import { deleteTriggersOf } from '../context';
import type { WorkflowContext } from '../context';

/** `DELETE /operations-manager/automations/:id`: its triggers first, so that none points at nothing. */
export function deleteAutomation(svc: WorkflowContext): Handler<'workflow.deleteAutomation'> {
  return async (input, ctx) => {
    const automation = await svc.automations.accessibleAutomation(input.params.id, ctx.caller, 'write');
    const triggers = await deleteTriggersOf(svc, automation._id);
    const deleted = await svc.automations.deleteAutomation(automation._id);
    if (deleted === 0) throw new AppError('AUTOMATION_NOT_FOUND', `No automation with id "${automation._id}"`);
    return {
      message: `Automation "${automation.name}" and ${triggers} trigger(s) deleted`,
      data: { automation: { deleted }, triggers: { deleted: triggers } },
      metadata: {},
    };
  };
}
