import type { Handler } from '@nap/bus';
import type { StudioDeps } from './deps';

/** `GET /transformations/:id`: one transformation by id (or name). */
export function getTransformation(deps: StudioDeps): Handler<'studio.getTransformation'> {
  return async (input) => deps.transformations.getByIdOrName(input.params.id);
}
