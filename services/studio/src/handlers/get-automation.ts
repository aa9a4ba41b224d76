import type { Handler } from '@nap/bus';
import { assertAccess } from '../domain/access';
import type { StudioDeps } from './deps';

/** `GET /automation-studio/automations/:id`: one workflow document. */
export function getAutomation(deps: StudioDeps): Handler<'studio.getAutomation'> {
  return async (input) => {
    const doc = await deps.workflows.get(input.params.id);
    assertAccess(input.caller, doc, 'workflow');
    return doc;
  };
}
