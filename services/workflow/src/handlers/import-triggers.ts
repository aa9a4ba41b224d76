import { isAppError } from '@nap/contracts';
import type { ImportResultItem, Trigger } from '@nap/contracts';
import type { Handler } from '@nap/bus';
import { saveTrigger } from '../context';
import type { WorkflowContext } from '../context';
import { importResult } from '../domain/import-result';
import { asImported, toPublicTrigger } from '../domain/trigger-model';

/**
 * `PUT /operations-manager/triggers`: each trigger stored on its own (its `_id` kept), reported per
 * item; an event trigger on an event this platform does not publish comes in disabled (said so).
 * The audit trail records each trigger imported.
 */
export function importTriggers(svc: WorkflowContext): Handler<'workflow.importTriggers'> {
  return async (input, ctx) => {
    const imported: ImportResultItem<Record<string, unknown>, Trigger>[] = [];
    for (const [i, item] of input.body.triggers.entries()) {
      try {
        const { trigger, note } = asImported(item);
        const created = toPublicTrigger(await saveTrigger(svc, trigger, `body.triggers[${i}]`, ctx.caller, true));
        const noted = note === undefined ? '' : `. Note: ${note}`;
        imported.push({ success: true, message: `Trigger "${created.name}" imported${noted}`, original: item, created });
        ctx.audit({ each: [{ target: { kind: 'trigger', id: created._id, name: created.name } }] });
      } catch (err) {
        if (!isAppError(err)) throw err;
        imported.push({ success: false, message: err.message, original: item, created: null });
      }
    }
    return importResult('triggers', imported);
  };
}
