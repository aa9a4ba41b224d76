import type { Handler } from '@nap/bus';
import { AppError, auditChanges } from '@nap/contracts';
import { changedAfter } from '@nap/util';
import { componentKinds, stampOf } from '../context';
import type { StudioContext } from '../context';
import { assertNotChanging } from '../domain/project-components';
import { assertWholeProjectVisible, changedProject, componentsNow, goneNote } from '../domain/projects';

/**
 * `PATCH /automation-studio/projects/:id`: change a project's name or description. Who may change
 * it is who may delete it: 403 `GROUP_ACCESS_DENIED` naming the components the caller may not see.
 * Answered as `GET …/projects/:id` answers it.
 */
export function updateProject(svc: StudioContext): Handler<'studio.updateProject'> {
  return async (input, ctx) => {
    // read, check, write only if unchanged meanwhile: a change made between (another PATCH, an
    // import of the project) is never written over, whatever the order the writes reach the store
    for (let attempt = 1; ; attempt++) {
      const current = await svc.projects.get(input.params.id);
      // an import or an addition of components writes its own copy of the record as it goes, which would undo a change made meanwhile
      assertNotChanging(current, 'change it');
      const now = await componentsNow(componentKinds(svc), current, input.caller);
      assertWholeProjectVisible(current, now, 'changed');
      const stamp = stampOf(svc, input.caller);
      // always later than the lastUpdated read, which the write is guarded by
      const at = changedAfter(current.lastUpdated, Date.parse(stamp.at));
      const stored = await svc.projects.replaceUnchanged(changedProject(current, input.body, stamp.by, at), current);
      if (stored !== null) {
        ctx.audit({ target: { kind: 'project', id: stored._id, name: stored.name }, changes: auditChanges(current, stored) });
        // answered as GET answers it: the components as they stand now (the record keeps them by reference)
        return {
          message: `Project "${stored.name}" updated`,
          data: { ...stored, components: now.present },
          metadata: goneNote(now.gone, input.caller),
        };
      }
      if (attempt >= UPDATE_ATTEMPTS)
        throw new AppError('CONFLICT', `Project "${current.name}" kept changing while it was being updated; try again`);
    }
  };
}

/**
 * Reads of a project a change makes before it gives up: an attempt fails only when another
 * change landed since its read, so this many changes at once all land.
 */
const UPDATE_ATTEMPTS = 20;
