import type { Handler } from '@nap/bus';
import type { StudioContext } from '../context';
import { tagsOfDocument } from '../steps/tags';

/** `POST /tags/getTagsByReference`: the tags on the document `data.ref_id`, by name ([] when it has none). */
export function getTagsByReference(svc: StudioContext): Handler<'studio.getTagsByReference'> {
  return async (input) => tagsOfDocument(svc, input.body.data.ref_id, input.caller);
}
