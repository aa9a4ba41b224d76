import type { Handler } from '@nap/bus';
import { accessibleTrigger } from '../context';
import type { WorkflowContext } from '../context';
import { toExportedTrigger } from '../domain/trigger-model';

/** `GET /operations-manager/triggers/:id/export`: the trigger as the import takes it back. */
export function exportTrigger(svc: WorkflowContext): Handler<'workflow.exportTrigger'> {
  return async (input, ctx) => ({
    message: 'Successfully exported the requested item',
    data: toExportedTrigger(await accessibleTrigger(svc, input.params.id, ctx.caller, 'read')),
    metadata: {},
  });
}
