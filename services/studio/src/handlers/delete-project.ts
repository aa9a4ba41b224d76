import type { Handler } from '@nap/bus';
import { componentKinds } from '../context';
import type { StudioContext } from '../context';
import { assertWholeProjectVisible, kindOf } from '../domain/projects';

/**
 * `DELETE /automation-studio/projects/:id`: its components through their services, then the
 * project; 403 `GROUP_ACCESS_DENIED` naming the components the caller may not see, before anything
 * is deleted.
 */
export function deleteProject(svc: StudioContext): Handler<'studio.deleteProject'> {
  return async (input) => {
    const kinds = componentKinds(svc);
    const project = await svc.projects.get(input.params.id);
    await assertWholeProjectVisible(kinds, project, input.caller, 'deleted');
    for (const c of project.components) await kindOf(kinds, c.type).remove(c.reference, input.caller);
    await svc.projects.delete(project._id);
    return { message: 'Successfully deleted the requested item', data: { deleted: project.components.length }, metadata: {} };
  };
}
