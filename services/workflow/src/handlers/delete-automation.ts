import { AppError } from '@nap/contracts';
import type { Handler } from '@nap/bus';
import { deleteTriggersOf } from '../context';
import type { WorkflowContext } from '../context';

/** `DELETE /operations-manager/automations/:id`: its triggers first, so that none points at nothing. */
export function deleteAutomation(svc: WorkflowContext): Handler<'workflow.deleteAutomation'> {
  return async (input) => {
    const automation = await svc.automations.getAutomation(input.params.id);
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
