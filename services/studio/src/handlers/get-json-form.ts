import type { Handler } from '@nap/bus';
import { asJsonForm, findForm } from '../context';
import type { StudioContext } from '../context';

/** `GET /json-forms/forms/:id`: one form, found as `GET /formbuilder/forms/:id` finds it, with `id` beside `_id`. */
export function getJsonForm(svc: StudioContext): Handler<'studio.getJsonForm'> {
  return async (input) => asJsonForm(await findForm(svc, input.params.id, input.caller));
}
