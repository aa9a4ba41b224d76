import type { Handler } from '@nap/bus';
import { assertAccess } from '../domain/access';
import type { StudioDeps } from './deps';

/** `GET /formbuilder/forms/:id` (addition): one form. */
export function getForm(deps: StudioDeps): Handler<'studio.getForm'> {
  return async (input) => {
    const form = await deps.forms.get(input.params.id);
    assertAccess(input.caller, form, 'form');
    return form;
  };
}
