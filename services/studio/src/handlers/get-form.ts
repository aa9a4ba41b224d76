import type { Handler } from '@nap/bus';
import { assertAccess } from '../domain/access';
import type { StudioContext } from '../context';

/** `GET /formbuilder/forms/:id` (addition): one form. */
export function getForm(svc: StudioContext): Handler<'studio.getForm'> {
  return async (input) => {
    const form = await svc.forms.get(input.params.id);
    assertAccess(input.caller, form, 'form');
    return form;
  };
}
