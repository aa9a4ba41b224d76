import type { Handler } from '@nap/bus';
import type { Projects } from '../projects/projects';

/** `POST /automation-studio/projects/import`: every component through its owning service, all or nothing. */
export function importProject(projects: Projects): Handler<'studio.importProject'> {
  return async (input) => {
    const project = await projects.import(input.body.project, input.caller);
    return { message: `Imported project "${project.name}" with ${project.components.length} components`, data: project, metadata: {} };
  };
}
