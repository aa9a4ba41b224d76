import type { Handler } from '@nap/bus';
import type { WorkflowContext } from '../context';
import { toPublicTrigger } from '../domain/trigger-model';

/** `GET /operations-manager/triggers/:id`. */
export function getTrigger(svc: WorkflowContext): Handler<'workflow.getTrigger'> {
  return async (input) => ({
    message: 'Successfully retrieved item',
    data: toPublicTrigger(await svc.triggers.get(input.params.id)),
    metadata: {},
  });
}
