import type { Handler } from '@nap/bus';
import { assertAccess } from '../domain/access';
import type { StudioContext } from '../context';

/** `DELETE /workflow_builder/workflows/delete/:name`: delete the workflow document of this exact name. */
export function deleteWorkflowByName(svc: StudioContext): Handler<'studio.deleteWorkflowByName'> {
  return async (input, ctx) => {
    const doc = await svc.workflows.findByName(input.params.name);
    if (doc === null) throw svc.workflows.notFound(input.params.name, 'name');
    assertAccess(input.caller, doc, 'workflow', input.params.name);
    await svc.workflows.delete(doc._id);
    ctx.audit({ target: { kind: 'workflow', id: doc._id, name: doc.name } });
    return { status: 'success', message: `Workflow "${doc.name}" deleted` };
  };
}
