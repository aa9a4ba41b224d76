import type { Handler } from '@nap/bus';
import { toListQuery } from '@nap/store';
import type { StudioContext } from '../context';
import { TRANSFORMATION_LIST_FIELDS } from '../domain/list-fields';

/** `GET /transformations`: a page of transformations. */
export function getTransformations(svc: StudioContext): Handler<'studio.getTransformations'> {
  return async (input) => svc.transformations.page(toListQuery(input.query, TRANSFORMATION_LIST_FIELDS));
}
