import type { Handler } from '@nap/bus';
import type { ProjectComponent } from '@nap/contracts';
import { componentKinds } from '../context';
import type { StudioContext } from '../context';
import { assertWholeProjectVisible, exportedComponent, kindOf } from '../domain/projects';

/**
 * `GET /automation-studio/projects/:id/export`: the components as stored now, under their original
 * names; 403 `GROUP_ACCESS_DENIED` naming the components the caller may not see (an export without
 * them would import as a different project).
 */
export function exportProject(svc: StudioContext): Handler<'studio.exportProject'> {
  return async (input) => {
    const kinds = componentKinds(svc);
    const { importing: _importing, components, ...project } = await svc.projects.get(input.params.id);
    await assertWholeProjectVisible(kinds, { ...project, components }, input.caller, 'exported');
    const exported: ProjectComponent[] = [];
    for (const c of components) {
      const stored = await kindOf(kinds, c.type).read(c.reference, c.storedName, input.caller);
      exported.push(exportedComponent(project._id, c, stored));
    }
    return { ...project, components: exported };
  };
}
