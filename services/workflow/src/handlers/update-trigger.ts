import { AppError, auditChanges } from '@nap/contracts';
import type { Handler } from '@nap/bus';
import { isRecord } from '@nap/util';
import type { WorkflowContext } from '../context';
import { newTriggerId, toPublicTrigger, toTriggerRecord } from '../domain/trigger-model';

/** `PATCH /operations-manager/triggers/:id`: the changed trigger (the body, or `{ changes }`), checked as on creation. */
export function updateTrigger(svc: WorkflowContext): Handler<'workflow.updateTrigger'> {
  return async (input, ctx) => {
    const { id } = input.params;
    const body = input.body;
    const existing = await svc.triggers.get(id);
    const changes = isRecord(body.changes) && Object.keys(body).length === 1 ? body.changes : body;
    const record = toTriggerRecord(changes, 'body', ctx.caller, Date.now(), { existing, newId: newTriggerId });
    if (record.actionId !== existing.actionId) await svc.automations.getAutomation(record.actionId);
    const stored = await svc.triggers.update(existing, record);
    if (stored === null) throw new AppError('TRIGGER_NOT_FOUND', `No trigger with id "${id}"`);
    svc.eventTriggers.invalidate();
    ctx.audit({ target: { kind: 'trigger', id, name: record.name }, changes: auditChanges(existing, record) });
    return { message: 'Successfully updated the requested item', data: toPublicTrigger(stored), metadata: {} };
  };
}
