import type { Handler } from '@nap/bus';
import type { WorkflowContext } from '../context';
import { toExportedTrigger } from '../domain/trigger-model';

/** `GET /operations-manager/automations/:id/export`: the automation with its triggers, as the import takes them back. */
export function exportAutomation(svc: WorkflowContext): Handler<'workflow.exportAutomation'> {
  return async (input, ctx) => {
    const automation = await svc.automations.accessibleAutomation(input.params.id, ctx.caller, 'read');
    const triggers = await svc.triggers.ofAction(automation._id);
    return {
      message: 'Successfully exported the requested item',
      data: { ...automation, triggers: triggers.map(toExportedTrigger) },
      metadata: {},
    };
  };
}
