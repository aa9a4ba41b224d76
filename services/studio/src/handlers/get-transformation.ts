import type { Handler } from '@nap/bus';
import type { StudioContext } from '../context';

/** `GET /transformations/:id`: one transformation by id (or name). */
export function getTransformation(svc: StudioContext): Handler<'studio.getTransformation'> {
  return async (input) => svc.transformations.getByIdOrName(input.params.id);
}
