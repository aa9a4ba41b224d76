import type { Handler } from '@nap/bus';
import type { WorkflowContext } from '../context';
import { toExportedTrigger } from '../domain/trigger-model';

/** `GET /operations-manager/triggers/:id/export`: the trigger as the import takes it back. */
export function exportTrigger(svc: WorkflowContext): Handler<'workflow.exportTrigger'> {
  return async (input) => ({
    message: 'Successfully exported the requested item',
    data: toExportedTrigger(await svc.triggers.get(input.params.id)),
    metadata: {},
  });
}
