import type { Handler } from '@nap/bus';
import { runStoredTransformation } from '../context';
import type { StudioContext } from '../context';

/** `POST /transformations/:id`: the run of `POST /automation-studio/json-forms/runTransformation/:transformationId` under the original platform's route. */
export function runTransformationById(svc: StudioContext): Handler<'studio.runTransformationById'> {
  return async (input) => runStoredTransformation(svc, input.params.id, input.body);
}
