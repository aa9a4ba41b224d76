import type { Handler } from '@nap/bus';
import { isAppError } from '@nap/contracts';
import type { ProjectComponent } from '@nap/contracts';
import { componentKinds } from '../context';
import type { StudioContext } from '../context';
import { assertNotChanging } from '../domain/project-components';
import {
  assertExportedNamesUnique,
  assertWholeProjectVisible,
  componentsNow,
  exportedComponent,
  foldersWithout,
  goneNote,
  kindOf,
} from '../domain/projects';

/**
 * `GET /automation-studio/projects/:id/export`: in the envelope (`data`, where ipctl reads it), the components as stored now, under their names in
 * the project (renames followed); those deleted through their own routes are left out (of the
 * folders too) and named in `componentsGone` and `note`. 403 `GROUP_ACCESS_DENIED` naming the
 * components the caller may not see (an export without them would import as a different project);
 * 409 `CONFLICT` naming two components of one type whose names a rename made the same (it would not import),
 * and while the project is being imported or its components changed (the export would be part of it).
 */
export function exportProject(svc: StudioContext): Handler<'studio.exportProject'> {
  return async (input) => {
    const kinds = componentKinds(svc);
    const record = await svc.projects.get(input.params.id);
    // an export under way would answer the components stored so far: a different project
    assertNotChanging(record, 'export it');
    const { importing: _importing, changing: _changing, components, folders, ...project } = record;
    const current = await componentsNow(kinds, { ...project, components }, input.caller);
    assertWholeProjectVisible(project, current, 'exported');
    const exported: ProjectComponent[] = [];
    const gone = [...current.gone];
    for (const c of current.present) {
      try {
        const stored = current.documents.get(c.reference) ?? (await kindOf(kinds, c.type).read(c.reference, c.storedName, input.caller));
        exported.push(exportedComponent(project._id, c, stored));
      } catch (err) {
        // deleted since the states were read
        if (!isAppError(err) || err.status !== 404) throw err;
        gone.push(c);
      }
    }
    assertExportedNamesUnique(project, exported);
    gone.sort((a, b) => a.iid - b.iid);
    return {
      message: `Exported project "${project.name}"`,
      data: {
        ...project,
        folders: foldersWithout(folders, new Set(gone.map((c) => c.iid))),
        components: exported,
        ...goneNote(gone, input.caller),
      },
      metadata: {},
    };
  };
}
