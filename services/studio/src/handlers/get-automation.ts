import type { Handler } from '@nap/bus';
import { assertAccess } from '../domain/access';
import type { StudioContext } from '../context';

/** `GET /automation-studio/automations/:id`: one workflow document. */
export function getAutomation(svc: StudioContext): Handler<'studio.getAutomation'> {
  return async (input) => {
    const doc = await svc.workflows.get(input.params.id);
    assertAccess(input.caller, doc, 'workflow', input.params.id);
    return doc;
  };
}
