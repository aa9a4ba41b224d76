import type { Handler } from '@nap/bus';
import type { StudioDeps } from './deps';
import { replaceWorkflow } from './workflow-save';

/** `PUT /automation-studio/automations/:id`: validate and replace a workflow document. */
export function updateAutomation(deps: StudioDeps): Handler<'studio.updateAutomation'> {
  return async (input) => {
    const { doc, warnings } = await replaceWorkflow(deps, input.params.id, input.body.update, input.caller, 'body.update');
    return { status: 'success', message: `Workflow "${doc.name}" updated`, data: doc, warnings };
  };
}
