import type { Handler } from '@nap/bus';
import { runStoredTransformation } from '../context';
import type { StudioContext } from '../context';

/**
 * `POST /automation-studio/json-forms/runTransformation/:transformationId`: run a transformation on
 * `{ incoming, options }` (a body with `data` and no `incoming` runs on `data`); answers the result itself.
 */
export function runTransformation(svc: StudioContext): Handler<'studio.runTransformation'> {
  return async (input) => runStoredTransformation(svc, input.params.transformationId, input.body);
}
