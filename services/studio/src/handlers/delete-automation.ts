import type { Handler } from '@nap/bus';
import { assertAccess } from '../domain/access';
import type { StudioContext } from '../context';

/** `DELETE /automation-studio/automations/:id`: delete a workflow document (jobs already started keep their copy). */
export function deleteAutomation(svc: StudioContext): Handler<'studio.deleteAutomation'> {
  return async (input, ctx) => {
    const doc = await svc.workflows.get(input.params.id);
    assertAccess(input.caller, doc, 'workflow', input.params.id);
    await svc.workflows.delete(doc._id);
    ctx.audit({ target: { kind: 'workflow', id: doc._id, name: doc.name } });
    return { status: 'success', message: `Workflow "${doc.name}" deleted` };
  };
}
