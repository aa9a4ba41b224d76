import type { Handler } from '@nap/bus';
import type { WorkflowHandlerContext } from './context';

/** `GET /operations-manager/automations/:id`. */
export function getAutomation(c: WorkflowHandlerContext): Handler<'workflow.getAutomation'> {
  return async (input) => ({
    message: 'Successfully retrieved item',
    data: await c.automationStore.getAutomation(input.params.id),
    metadata: {},
  });
}
