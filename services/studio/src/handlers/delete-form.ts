import type { Handler } from '@nap/bus';
import { assertAccess } from '../domain/access';
import type { StudioContext } from '../context';

/** `DELETE /formbuilder/forms/:id` (addition): delete a form. */
export function deleteForm(svc: StudioContext): Handler<'studio.deleteForm'> {
  return async (input, ctx) => {
    const form = await svc.forms.get(input.params.id);
    assertAccess(input.caller, form, 'form', input.params.id);
    await svc.forms.delete(form._id);
    ctx.audit({ target: { kind: 'form', id: form._id, name: form.name } });
    return { status: 'success', message: `Form "${form.name}" deleted` };
  };
}
