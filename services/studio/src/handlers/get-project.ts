import type { Handler } from '@nap/bus';
import type { StudioContext } from '../context';

/** `GET /automation-studio/projects/:id`. */
export function getProject(svc: StudioContext): Handler<'studio.getProject'> {
  return async (input) => ({ message: 'Successfully retrieved item', data: await svc.projects.get(input.params.id), metadata: {} });
}
