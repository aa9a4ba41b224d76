import type { Handler } from '@nap/bus';
import type { StudioDeps } from './deps';

/** `DELETE /transformations/:id`: remove a transformation. */
export function deleteTransformation(deps: StudioDeps): Handler<'studio.deleteTransformation'> {
  return async (input) => {
    await deps.transformations.delete(input.params.id);
    deps.jst.forget(input.params.id);
    return { status: 'success', message: `Transformation "${input.params.id}" deleted` };
  };
}
