import type { Handler } from '@nap/bus';
import { isAppError } from '@nap/contracts';
import type { ImportResultItem } from '@nap/contracts';
import { errorMessage } from '@nap/util';
import { saveAutomation } from '../context';
import type { WorkflowContext } from '../context';
import type { StoredAutomation } from '../domain/automations';
import { importResult } from '../domain/import-result';

/**
 * `PUT /operations-manager/automations`: imports exported automations, each with the triggers it
 * carries, each reported on its own; the answer's status stays success. The audit trail records
 * each automation imported.
 */
export function importAutomations(svc: WorkflowContext): Handler<'workflow.importAutomations'> {
  return async (input, ctx) => {
    const imported: ImportResultItem<Record<string, unknown>, StoredAutomation>[] = [];
    for (const [i, item] of input.body.automations.entries()) {
      try {
        const { automation: created, notes } = await saveAutomation(svc, item, `body.automations[${i}]`, ctx.caller, true);
        const triggers = created.triggers.length === 0 ? '' : ` with ${created.triggers.length} trigger(s)`;
        const noted = notes.length === 0 ? '' : `. Note: ${notes.join('; ')}`;
        imported.push({ success: true, message: `Automation "${created.name}" imported${triggers}${noted}`, original: item, created });
        ctx.audit({ each: [{ target: { kind: 'automation', id: created._id, name: created.name } }] });
      } catch (err) {
        if (!isAppError(err)) throw err;
        imported.push({ success: false, message: `automations[${i}]: ${errorMessage(err)}`, original: item, created: null });
      }
    }
    return importResult('automations', imported);
  };
}
