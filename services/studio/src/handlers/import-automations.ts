import type { Handler } from '@nap/bus';
import { createWorkflow } from '../context';
import type { StudioContext } from '../context';
import { importEach } from '../domain/import-results';

/**
 * `POST /automation-studio/automations/import`: each workflow is validated and stored on its own; a
 * refused one is reported with its problems and the others are still imported.
 */
export function importAutomations(svc: StudioContext): Handler<'studio.importAutomations'> {
  return async (input, ctx) =>
    importEach(input.body.automations, { one: 'workflow', many: 'workflows' }, { ctx, kind: 'workflow' }, async (item, index) => {
      const { doc, warnings } = await createWorkflow(svc, item, input.caller, `body.automations[${index}]`);
      return { created: doc, extra: { warnings } };
    });
}
