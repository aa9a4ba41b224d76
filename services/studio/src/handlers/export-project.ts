import type { Handler } from '@nap/bus';
import type { Projects } from '../projects/projects';

/** `GET /automation-studio/projects/:id/export`: the components as stored now, under their original names. */
export function exportProject(projects: Projects): Handler<'studio.exportProject'> {
  return async (input) => projects.export(input.params.id, input.caller);
}
