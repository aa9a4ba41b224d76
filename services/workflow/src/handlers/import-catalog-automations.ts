import type { Handler } from '@nap/bus';
import { SYSTEM_CALLER } from '@nap/contracts';
import type { ExportedAutomation, ImportResultItem } from '@nap/contracts';
import { errorMessage } from '@nap/util';
import type { WorkflowContext } from '../context';
import { catalogGroupRefs, toCatalogAutomation } from '../domain/automations';
import type { StoredCatalogAutomation } from '../domain/automations';
import { importResult } from '../domain/import-result';

/**
 * `POST /automation_catalog/automations/import`: imports exported automations into the catalog;
 * group names in gbac become group ids, and an item naming a group that does not exist fails on its own.
 */
export function importCatalogAutomations(svc: WorkflowContext): Handler<'workflow.importCatalogAutomations'> {
  return async (input, ctx) => {
    // the group directory is read once, and only when an item names a group
    let groups: Map<string, string> | undefined;
    const imported: ImportResultItem<ExportedAutomation, StoredCatalogAutomation>[] = [];
    for (const [i, item] of input.body.automations.entries()) {
      try {
        if (groups === undefined && catalogGroupRefs(item).length > 0) groups = await groupIdsByName(svc);
        const doc = toCatalogAutomation(item, ctx.caller, groups ?? new Map<string, string>());
        const created = await svc.automations.insertCatalogAutomation(doc);
        imported.push({ success: true, message: `Automation "${doc.name}" imported`, original: item, created });
      } catch (err) {
        imported.push({ success: false, message: `automations[${i}]: ${errorMessage(err)}`, original: item, created: null });
      }
    }
    return importResult('automations', imported);
  };
}

/** The platform's groups, name → id; read as the platform, so that a writer need not be an admin to import. */
async function groupIdsByName(svc: WorkflowContext): Promise<Map<string, string>> {
  const { results } = (await svc.client.call('admin.getGroups', { query: {} }, { caller: SYSTEM_CALLER })).body;
  const groups = new Map<string, string>();
  for (const { name, _id } of results) if (name !== undefined && _id !== undefined) groups.set(name, _id);
  return groups;
}
