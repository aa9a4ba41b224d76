import type { Handler } from '@nap/bus';
import type { StudioDeps } from './deps';
import { insertTransformation } from './transformation-save';

/** `POST /transformations`: check and store a transformation (the bare document); answers the stored one. */
export function createTransformation(deps: StudioDeps): Handler<'studio.createTransformation'> {
  return async (input) => (await insertTransformation(deps, input.body, input.caller)).created;
}
