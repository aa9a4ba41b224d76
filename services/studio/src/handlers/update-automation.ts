import type { Handler } from '@nap/bus';
import { auditChanges } from '@nap/contracts';
import { stampOf } from '../context';
import type { StudioContext } from '../context';
import { assertAccess, assertAssignable } from '../domain/access';
import { checkWorkflow, storedWorkflow } from '../domain/workflows';

/** `PUT /automation-studio/automations/:id`: validate and replace a workflow document; its creation stamp stays. */
export function updateAutomation(svc: StudioContext): Handler<'studio.updateAutomation'> {
  return async (input, ctx) => {
    const { id } = input.params;
    const current = await svc.workflows.get(id);
    assertAccess(input.caller, current, 'workflow', id);
    const { workflow, warnings } = checkWorkflow(input.body.update, 'body.update');
    assertAssignable(input.caller, workflow.groups, 'workflow');
    const original = { _id: id, created: current.created, createdBy: current.created_by };
    const doc = await svc.workflows.replace(storedWorkflow(workflow, id, stampOf(svc, input.caller), 'body.update', original));
    ctx.audit({ target: { kind: 'workflow', id, name: doc.name }, changes: auditChanges(current, doc) });
    return { status: 'success', message: `Workflow "${doc.name}" updated`, data: doc, warnings };
  };
}
