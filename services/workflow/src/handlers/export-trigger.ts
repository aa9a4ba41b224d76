import type { Handler } from '@nap/bus';
import type { WorkflowHandlerContext } from './context';

/** `GET /operations-manager/triggers/:id/export`: the trigger as the import takes it back. */
export function exportTrigger(c: WorkflowHandlerContext): Handler<'workflow.exportTrigger'> {
  return async (input) => ({
    message: 'Successfully exported the requested item',
    data: await c.triggers.exportOne(input.params.id),
    metadata: {},
  });
}
