import type { Handler } from '@nap/bus';
import type { StudioDeps } from './deps';
import { importEach } from './import-each';
import { createWorkflow } from './workflow-save';

/**
 * `POST /automation-studio/automations/import`: each workflow is validated and stored on its own; a
 * refused one is reported with its problems and the others are still imported.
 */
export function importAutomations(deps: StudioDeps): Handler<'studio.importAutomations'> {
  return async (input) =>
    importEach(input.body.automations, { one: 'workflow', many: 'workflows' }, async (item, index) => {
      const { doc, warnings } = await createWorkflow(deps, item, input.caller, `body.automations[${index}]`);
      return { created: doc, extra: { warnings } };
    });
}
