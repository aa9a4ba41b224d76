import type { Handler } from '@nap/bus';
import { accessibleTrigger } from '../context';
import type { WorkflowContext } from '../context';
import { toPublicTrigger } from '../domain/trigger-model';

/** `GET /operations-manager/triggers/:id`. */
export function getTrigger(svc: WorkflowContext): Handler<'workflow.getTrigger'> {
  return async (input, ctx) => ({
    message: 'Successfully retrieved item',
    data: toPublicTrigger(await accessibleTrigger(svc, input.params.id, ctx.caller, 'read')),
    metadata: {},
  });
}
