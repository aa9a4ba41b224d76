import { AppError, auditChanges } from '@nap/contracts';
import type { Handler } from '@nap/bus';
import { changedAfter } from '@nap/util';
import { assertGroupsExist } from '../context';
import type { WorkflowContext } from '../context';
import { gbacGroupIds, toUpdatedAutomation } from '../domain/automations';

/**
 * `PATCH /operations-manager/automations/:id` (Itential's updateAutomation): the members given
 * change, the others stay. The caller must be allowed to change the automation (its gbac write
 * groups) and to run a workflow it points the automation at (403 GROUP_ACCESS_DENIED: the
 * automation's schedules and event triggers run as whoever last changed them, not as the caller);
 * a new gbac is checked as on creation. Its id stays, so its triggers keep starting it.
 */
export function updateAutomation(svc: WorkflowContext): Handler<'workflow.updateAutomation'> {
  return async (input, ctx) => {
    // read, check, write only if unchanged meanwhile: a concurrent change (another PATCH, a gbac that
    // takes the caller's access away) is never written over
    for (let attempt = 1; ; attempt++) {
      const existing = await svc.automations.accessibleAutomation(input.params.id, ctx.caller, 'write');
      const next = toUpdatedAutomation(existing, input.body, ctx.caller, Date.parse(changedAfter(existing.lastUpdated, Date.now())));
      if (input.body.gbac !== undefined) await assertGroupsExist(svc, gbacGroupIds(next), 'body.gbac');
      // its schedules and event triggers run as whoever last changed them: pointing it at a workflow
      // is for those who may run that workflow themselves
      if (
        next.componentType !== existing.componentType ||
        next.componentName !== existing.componentName ||
        next.componentId !== existing.componentId
      )
        await svc.triggerStarter.assertMayRepoint(next, ctx.caller);
      const stored = await svc.automations.replaceAutomation(next, existing);
      if (stored === null) throw new AppError('AUTOMATION_NOT_FOUND', `No automation with id "${existing._id}"`);
      if (stored !== 'changed') {
        ctx.audit({ target: { kind: 'automation', id: stored._id, name: stored.name }, changes: auditChanges(existing, stored) });
        return { message: `Automation "${stored.name}" updated`, data: stored, metadata: {} };
      }
      if (attempt >= UPDATE_ATTEMPTS)
        throw new AppError('CONFLICT', `Automation "${existing.name}" kept changing while it was being updated; try again`);
    }
  };
}

/**
 * Reads of an automation a change makes before it gives up: an attempt fails only when another
 * change landed since its read, so this many changes at once all land.
 */
const UPDATE_ATTEMPTS = 20;
