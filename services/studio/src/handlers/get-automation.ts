import type { Handler } from '@nap/bus';
import { assertAccess } from '../domain/access';
import type { StoredWorkflow, StudioDeps } from './deps';

/** `GET /automation-studio/automations/:id`: one workflow document. */
export function getAutomation(deps: StudioDeps): Handler<unknown, { id: string }> {
  return async (input): Promise<StoredWorkflow> => {
    const doc = await deps.workflows.get(input.params.id);
    assertAccess(input.caller, doc, 'workflow');
    return doc;
  };
}
