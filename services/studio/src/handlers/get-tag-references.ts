import type { Handler } from '@nap/bus';
import type { StudioContext } from '../context';
import { referencesOf } from '../steps/tags';

/** `POST /tags/getTagReferences`: the references of the documents `data.ref_ids` that the caller may see. */
export function getTagReferences(svc: StudioContext): Handler<'studio.getTagReferences'> {
  return async (input) => referencesOf(svc, input.body.data.ref_ids, input.caller);
}
