import type { Handler } from '@nap/bus';
import { TIMEOUTS_MS } from '@nap/contracts';
import { componentKinds } from '../context';
import type { StudioContext } from '../context';
import { assertNotChanging } from '../domain/project-components';
import { assertWholeProjectVisible, componentsNow, kindOf } from '../domain/projects';

/**
 * `DELETE /automation-studio/projects/:id`: its components still stored through their services
 * (whatever they are named now), then the project; 403 `GROUP_ACCESS_DENIED` naming the components
 * the caller may not see, before anything is deleted. 409 `CONFLICT` while another request imports the
 * project or changes its components.
 */
export function deleteProject(svc: StudioContext): Handler<'studio.deleteProject'> {
  return async (input) => {
    const kinds = componentKinds(svc);
    const project = await svc.projects.get(input.params.id);
    // an import under way would go on storing components into a project that is gone, and answer 404 for its own
    // project; one a crash left (older than any import may run) is deleted, as the next start would roll it back
    const importing = project.importing !== undefined && project.importing.startedAt > Date.now() - TIMEOUTS_MS.long;
    if (project.changing !== undefined || importing) assertNotChanging(project, 'delete it');
    const current = await componentsNow(kinds, project, input.caller);
    assertWholeProjectVisible(project, current, 'deleted');
    for (const c of current.present) await kindOf(kinds, c.type).remove(c.reference, input.caller);
    await svc.projects.delete(project._id);
    return { message: 'Successfully deleted the requested item', data: { deleted: current.present.length }, metadata: {} };
  };
}
