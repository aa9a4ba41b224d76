import type { Handler } from '@nap/bus';
import type { Projects } from '../projects/projects';

/** `DELETE /automation-studio/projects/:id`: its components through their services, then the project. */
export function deleteProject(projects: Projects): Handler<'studio.deleteProject'> {
  return async (input) => ({
    message: 'Successfully deleted the requested item',
    data: { deleted: await projects.delete(input.params.id, input.caller) },
    metadata: {},
  });
}
