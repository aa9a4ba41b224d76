import type { Handler } from '@nap/bus';
import { toListQuery } from '@nap/store';
import type { StudioContext } from '../context';
import { TRANSFORMATION_LIST_FIELDS } from '../domain/list-fields';

/**
 * `GET /transformations`: a page of transformations, under `results` as the original platform
 * answers it (ipctl pages on it) and under `items` as the other page routes do.
 */
export function getTransformations(svc: StudioContext): Handler<'studio.getTransformations'> {
  return async (input) => {
    const page = await svc.transformations.page(toListQuery(input.query, TRANSFORMATION_LIST_FIELDS));
    return { results: page.items, ...page };
  };
}
