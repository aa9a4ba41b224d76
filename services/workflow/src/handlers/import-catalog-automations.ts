import { SYSTEM_CALLER } from '@nap/contracts';
import type { Handler } from '@nap/bus';
import type { WorkflowHandlerContext } from './context';

/** Operation 1: imports exported automations into the catalog; group names in gbac become group ids. */
export function importCatalogAutomations(c: WorkflowHandlerContext): Handler<'workflow.importCatalogAutomations'> {
  return async (input, ctx) =>
    c.automations.importCatalog(input.body.automations, ctx.caller, async () => {
      // the group directory is the platform's, read as the platform: a writer need not be an admin to import
      const { results } = (await c.client.call('admin.getGroups', { query: {} }, { caller: SYSTEM_CALLER })).body;
      const groups = new Map<string, string>();
      for (const { name, _id } of results) if (name !== undefined && _id !== undefined) groups.set(name, _id);
      return groups;
    });
}
