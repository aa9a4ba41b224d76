import type { Handler } from '@nap/bus';
import { AppError, isAppError } from '@nap/contracts';
import { changedAfter } from '@nap/util';
import { componentKinds } from '../context';
import type { StudioContext } from '../context';
import { EXISTS_CODES, assertNotChanging, auditView, componentChanges, movedOutName, refusedComponent } from '../domain/project-components';
import { assertWholeProjectVisible, componentsNow, foldersWithout, kindOf } from '../domain/projects';
import type { ProjectRecord } from '../domain/projects';
import { answer } from '../steps/project-components';

/**
 * `DELETE /automation-studio/projects/:id/components/:componentId`: a component taken out of its
 * project, its document deleted (`delete`) or renamed out of the project (`move`, the default).
 * Answered as `GET …/projects/:id` answers it.
 */
export function removeProjectComponent(svc: StudioContext): Handler<'studio.removeProjectComponent'> {
  return async (input, ctx) => {
    const kinds = componentKinds(svc);
    const mode = input.body.options?.mode ?? 'move';
    const record = await svc.projects.get(input.params.id);
    assertNotChanging(record, 'remove a component');
    const asked = input.params.componentId;
    const component = /^\d+$/.test(asked)
      ? record.components.find((c) => c.iid === Number(asked))
      : record.components.find((c) => c.reference === asked);
    if (component === undefined)
      throw new AppError('NOT_FOUND', `Project "${record.name}" has no component ${asked} (an iid, or the id of its document)`);
    const now = await componentsNow(kinds, { _id: record._id, components: [component] }, input.caller);
    assertWholeProjectVisible(record, now, 'changed');
    const [present] = now.present;
    const kind = kindOf(kinds, component.type);
    const label = `${component.iid} (${component.type} "${present?.name ?? component.name}")`;
    const refused = (err: unknown): unknown => (isAppError(err) ? refusedComponent(err, label, 'Nothing was removed.') : err);

    const stamp = { at: changedAfter(record.lastUpdated, Date.parse(svc.now())), by: input.caller.username };
    const without: ProjectRecord = {
      ...record,
      components: record.components.filter((c) => c !== component),
      folders: foldersWithout(record.folders, new Set([component.iid])),
      lastUpdated: stamp.at,
      lastUpdatedBy: stamp.by,
    };
    let document = present === undefined ? 'gone already' : 'deleted';
    if (present === undefined || mode === 'delete') {
      // the project first: a document that cannot be deleted puts the component back
      await writeOver(svc, without, record);
      if (present !== undefined)
        try {
          await kind.remove(component.reference, input.caller);
        } catch (err) {
          await svc.projects.replace({ ...record, lastUpdated: changedAfter(stamp.at, Date.parse(svc.now())) });
          throw refused(err);
        }
    } else {
      const to = movedOutName(record._id, present.storedName);
      if (to !== present.storedName) {
        if (await kind.nameTaken(to, input.caller))
          throw refused(
            new AppError(
              EXISTS_CODES[component.type],
              `a ${component.type} named "${to}" exists outside the project; remove it with mode delete, or rename that one first`,
            ),
          );
        try {
          await kind.rename(component.reference, present.storedName, to, input.caller);
        } catch (err) {
          throw refused(err);
        }
      }
      try {
        await writeOver(svc, without, record);
      } catch (err) {
        if (to !== present.storedName) await kind.rename(component.reference, to, present.storedName, input.caller);
        throw err;
      }
      document = `moved out of the project as "${to}"`;
    }
    ctx.audit({
      target: { kind: 'project', id: record._id, name: record.name },
      changes: componentChanges(new Map([[component.iid, auditView(present ?? component, { document })]]), new Map(), {
        before: record.folders,
        after: without.folders,
      }),
    });
    return answer(
      svc,
      without,
      input.caller,
      `Removed component ${component.iid} from project "${record.name}" (its document ${document})`,
    );
  };
}

/** Writes `next` over the project record only if it is still `previous`; 409 `CONFLICT` otherwise. */
async function writeOver(svc: StudioContext, next: ProjectRecord, previous: ProjectRecord): Promise<void> {
  if ((await svc.projects.replaceUnchanged(next, previous)) === null)
    throw new AppError('CONFLICT', `Project "${previous.name}" changed while a component was being removed; try again`);
}
