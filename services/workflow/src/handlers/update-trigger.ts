import { AppError, auditChanges, isDeclaredSecretMember } from '@nap/contracts';
import type { Handler } from '@nap/bus';
import { isRecord } from '@nap/util';
import { accessibleTrigger, withFormSecrets } from '../context';
import type { WorkflowContext } from '../context';
import { assertKnownChanges, newTriggerId, runsAsItsOwner, toPublicTrigger, toTriggerRecord } from '../domain/trigger-model';

/**
 * `PATCH /operations-manager/triggers/:id`: the changed trigger (the body, or `{ changes }`), checked
 * as on creation; a member no trigger has is refused. The trigger then runs as the caller (a schedule
 * or event trigger acts as whoever changed it last), so the caller must be allowed to run its workflow.
 */
export function updateTrigger(svc: WorkflowContext): Handler<'workflow.updateTrigger'> {
  return async (input, ctx) => {
    const { id } = input.params;
    const body = input.body;
    const existing = await accessibleTrigger(svc, id, ctx.caller, 'write');
    const wrapped = isRecord(body.changes) && Object.keys(body).length === 1;
    const changes = wrapped ? (body.changes as Record<string, unknown>) : body;
    assertKnownChanges(changes, wrapped ? 'body.changes' : 'body');
    // the trigger runs as the caller from now on (see toTriggerRecord): what it starts must be theirs to run
    const record = await withFormSecrets(
      svc,
      toTriggerRecord(changes, 'body', ctx.caller, Date.now(), { existing, newId: newTriggerId }),
      ctx.caller,
      existing,
    );
    // a trigger changes what its automation does: the caller must be allowed to change the automation
    await svc.automations.accessibleAutomation(record.actionId, ctx.caller, 'write');
    if (runsAsItsOwner(record)) await svc.triggerStarter.assertMayStart(record, ctx.caller);
    const stored = await svc.triggers.update(existing, record);
    if (stored === null) throw new AppError('TRIGGER_NOT_FOUND', `No trigger with id "${id}"`);
    svc.eventTriggers.invalidate();
    // what the form declares secret (before or now) is listed as changed, never with its values
    const declared = [...(existing.secretPaths ?? []), ...(record.secretPaths ?? [])];
    ctx.audit({
      target: { kind: 'trigger', id, name: record.name },
      changes: auditChanges(existing, record, {
        ignore: ['secretPaths'],
        isSecretMember: (member, containing) => isDeclaredSecretMember(member, 'formData', declared, containing),
      }),
    });
    return { message: 'Successfully updated the requested item', data: toPublicTrigger(stored), metadata: {} };
  };
}
