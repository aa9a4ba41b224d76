import type { Handler } from '@nap/bus';
import type { ImportResultItem } from '@nap/contracts';
import { errorMessage } from '@nap/util';
import type { WorkflowContext } from '../context';
import { toAutomationRecord } from '../domain/automations';
import type { StoredAutomation } from '../domain/automations';
import { importResult } from '../domain/import-result';

/** `PUT /operations-manager/automations`: imports automation documents, each reported on its own; the answer's status stays success. */
export function importAutomations(svc: WorkflowContext): Handler<'workflow.importAutomations'> {
  return async (input, ctx) => {
    const imported: ImportResultItem<Record<string, unknown>, StoredAutomation>[] = [];
    for (const [i, item] of input.body.automations.entries()) {
      try {
        const created = await svc.automations.insertAutomation(toAutomationRecord(item, ctx.caller, Date.now(), true));
        imported.push({ success: true, message: `Automation "${created.name}" imported`, original: item, created });
      } catch (err) {
        imported.push({ success: false, message: `automations[${i}]: ${errorMessage(err)}`, original: item, created: null });
      }
    }
    return importResult('automations', imported);
  };
}
