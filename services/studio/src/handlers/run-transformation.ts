import type { Handler } from '@nap/bus';
import type { TransformationRunBody } from '@nap/contracts';
import type { StudioDeps } from './deps';

async function run(deps: StudioDeps, idOrName: string, body: TransformationRunBody): Promise<unknown> {
  const doc = await deps.transformations.getByIdOrName(idOrName);
  return deps.jst.run(doc, body.incoming ?? body.data ?? {}, body.options ?? {});
}

/**
 * `POST /automation-studio/json-forms/runTransformation/:transformationId`: run a transformation on
 * `{ incoming, options }` (a body with `data` and no `incoming` runs on `data`); answers the result itself.
 */
export function runTransformation(deps: StudioDeps): Handler<'studio.runTransformation'> {
  return async (input) => run(deps, input.params.transformationId, input.body);
}

/** `POST /transformations/:id`: the same run under the original platform's route. */
export function runTransformationById(deps: StudioDeps): Handler<'studio.runTransformationById'> {
  return async (input) => run(deps, input.params.id, input.body);
}
