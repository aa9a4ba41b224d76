import type { Handler } from '@nap/bus';
import type { StudioContext } from '../context';

/** `POST /tags/get`: one tag by its id (`{ id }`); 404 `TAG_NOT_FOUND` naming it. */
export function getTag(svc: StudioContext): Handler<'studio.getTag'> {
  return async (input) => svc.tags.get(input.body.id);
}
