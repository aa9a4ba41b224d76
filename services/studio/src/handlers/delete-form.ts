import type { Handler } from '@nap/bus';
import type { Acknowledgement } from '@nap/contracts';
import { assertAccess } from '../domain/access';
import type { StudioDeps } from './deps';

/** `DELETE /formbuilder/forms/:id` (addition): delete a form. */
export function deleteForm(deps: StudioDeps): Handler<unknown, { id: string }> {
  return async (input): Promise<Acknowledgement> => {
    const form = await deps.forms.get(input.params.id);
    assertAccess(input.caller, form as { name: string; groups?: string[] }, 'form');
    await deps.forms.delete(form._id);
    return { status: 'success', message: `Form "${form.name}" deleted` };
  };
}
