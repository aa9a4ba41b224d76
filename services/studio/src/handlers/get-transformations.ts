import type { Handler } from '@nap/bus';
import { toListQuery } from '@nap/store';
import type { StudioDeps } from './deps';
import { TRANSFORMATION_LIST_FIELDS } from './list-fields';

/** `GET /transformations`: a page of transformations. */
export function getTransformations(deps: StudioDeps): Handler<'studio.getTransformations'> {
  return async (input) => deps.transformations.page(toListQuery(input.query, TRANSFORMATION_LIST_FIELDS));
}
