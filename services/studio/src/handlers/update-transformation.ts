import type { Handler } from '@nap/bus';
import type { StudioDeps } from './deps';
import { replaceTransformation } from './transformation-save';

/** `PUT /transformations/:id`: replace a transformation with the bare document, checked as on creation. */
export function updateTransformation(deps: StudioDeps): Handler<'studio.updateTransformation'> {
  return async (input) => replaceTransformation(deps, input.params.id, input.body, input.caller);
}
