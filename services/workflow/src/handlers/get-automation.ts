import type { Handler } from '@nap/bus';
import type { WorkflowContext } from '../context';

/** `GET /operations-manager/automations/:id`. */
export function getAutomation(svc: WorkflowContext): Handler<'workflow.getAutomation'> {
  return async (input) => ({
    message: 'Successfully retrieved item',
    data: await svc.automations.getAutomation(input.params.id),
    metadata: {},
  });
}
