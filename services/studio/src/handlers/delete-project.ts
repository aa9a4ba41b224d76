import type { Handler } from '@nap/bus';
import { componentKinds } from '../context';
import type { StudioContext } from '../context';
import { assertNotChanging } from '../domain/project-components';
import { assertWholeProjectVisible, componentsNow, kindOf } from '../domain/projects';

/**
 * `DELETE /automation-studio/projects/:id`: its components still stored through their services
 * (whatever they are named now), then the project; 403 `GROUP_ACCESS_DENIED` naming the components
 * the caller may not see, before anything is deleted.
 */
export function deleteProject(svc: StudioContext): Handler<'studio.deleteProject'> {
  return async (input) => {
    const kinds = componentKinds(svc);
    const project = await svc.projects.get(input.params.id);
    if (project.changing !== undefined) assertNotChanging(project, 'delete it');
    const current = await componentsNow(kinds, project, input.caller);
    assertWholeProjectVisible(project, current, 'deleted');
    for (const c of current.present) await kindOf(kinds, c.type).remove(c.reference, input.caller);
    await svc.projects.delete(project._id);
    return { message: 'Successfully deleted the requested item', data: { deleted: current.present.length }, metadata: {} };
  };
}
