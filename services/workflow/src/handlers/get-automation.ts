import type { Handler } from '@nap/bus';
import type { WorkflowContext } from '../context';

/** `GET /operations-manager/automations/:id`. */
export function getAutomation(svc: WorkflowContext): Handler<'workflow.getAutomation'> {
  return async (input, ctx) => ({
    message: 'Successfully retrieved item',
    data: await svc.automations.accessibleAutomation(input.params.id, ctx.caller, 'read'),
    metadata: {},
  });
}
