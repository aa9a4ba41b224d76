import type { Handler } from '@nap/bus';
import type { WorkflowHandlerContext } from './context';

/** `GET /operations-manager/triggers/:id`. */
export function getTrigger(c: WorkflowHandlerContext): Handler<'workflow.getTrigger'> {
  return async (input) => ({ message: 'Successfully retrieved item', data: await c.triggers.get(input.params.id), metadata: {} });
}
