import type { Handler } from '@nap/bus';
import { assertAccess } from '../domain/access';
import type { StudioDeps } from './deps';

/** `DELETE /automation-studio/automations/:id`: delete a workflow document (jobs already started keep their copy). */
export function deleteAutomation(deps: StudioDeps): Handler<'studio.deleteAutomation'> {
  return async (input) => {
    const doc = await deps.workflows.get(input.params.id);
    assertAccess(input.caller, doc, 'workflow');
    await deps.workflows.delete(doc._id);
    return { status: 'success', message: `Workflow "${doc.name}" deleted` };
  };
}
