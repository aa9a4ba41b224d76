import type { Handler } from '@nap/bus';
import type { StudioDeps } from './deps';

/** `GET /automation-studio/projects/:id`. */
export function getProject(deps: StudioDeps): Handler<'studio.getProject'> {
  return async (input) => ({ message: 'Successfully retrieved item', data: await deps.projectRecords.get(input.params.id), metadata: {} });
}
