import { AppError } from '@nap/contracts';
import type { Handler } from '@nap/bus';
import { accessibleTrigger } from '../context';
import type { WorkflowContext } from '../context';

/** `DELETE /operations-manager/triggers/:id`. */
export function deleteTrigger(svc: WorkflowContext): Handler<'workflow.deleteTrigger'> {
  return async (input, ctx) => {
    await accessibleTrigger(svc, input.params.id, ctx.caller, 'write');
    const deleted = await svc.triggers.delete(input.params.id);
    if (deleted === 0) throw new AppError('TRIGGER_NOT_FOUND', `No trigger with id "${input.params.id}"`);
    svc.eventTriggers.invalidate();
    return { message: 'Successfully deleted the requested item', data: { deleted }, metadata: {} };
  };
}
