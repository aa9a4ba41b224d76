import type { Handler } from '@nap/bus';
import { assertAccess } from '../domain/access';
import type { StudioDeps } from './deps';

/** `DELETE /formbuilder/forms/:id` (addition): delete a form. */
export function deleteForm(deps: StudioDeps): Handler<'studio.deleteForm'> {
  return async (input) => {
    const form = await deps.forms.get(input.params.id);
    assertAccess(input.caller, form, 'form');
    await deps.forms.delete(form._id);
    return { status: 'success', message: `Form "${form.name}" deleted` };
  };
}
