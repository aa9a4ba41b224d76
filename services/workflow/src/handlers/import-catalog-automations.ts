import { SYSTEM_CALLER } from '@nap/contracts';
import type { Handler } from '@nap/bus';
import type { ImportCatalogAutomationsBody } from '@nap/contracts';
import type { WorkflowHandlerContext } from './context';

/** Operation 1: imports exported automations into the catalog; group names in gbac become group ids. */
export function importCatalogAutomations(c: WorkflowHandlerContext): Handler<ImportCatalogAutomationsBody> {
  return async (input, ctx) =>
    c.automations.importCatalog(input.body.automations, ctx.caller, async () => {
      // the group directory is the platform's, read as the platform: a writer need not be an admin to import
      const { results } = await c.engine.deps.call('admin.getGroups', { query: {} }, SYSTEM_CALLER) as { results: { _id: string; name: string }[] };
      return new Map(results.map((g) => [g.name, g._id]));
    });
}
