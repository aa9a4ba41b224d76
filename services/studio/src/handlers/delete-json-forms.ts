import type { Handler } from '@nap/bus';
import { AppError } from '@nap/contracts';
import type { StoredForm } from '@nap/contracts';
import type { StudioContext } from '../context';
import { assertAccess } from '../domain/access';

/** `DELETE /json-forms/forms`: delete the forms of `ids`, all or nothing (every one checked before any is deleted). */
export function deleteJsonForms(svc: StudioContext): Handler<'studio.deleteJsonForms'> {
  return async (input, ctx) => {
    const forms: StoredForm[] = [];
    for (const [index, id] of input.body.ids.entries()) {
      if (forms.some((f) => f._id === id)) continue;
      const form = await svc.forms.findById(id);
      if (form === null) {
        throw new AppError('FORM_NOT_FOUND', `No form with id "${id}"`, {
          details: [{ member: `body.ids[${index}]`, message: 'no such form' }],
        });
      }
      assertAccess(input.caller, form, 'form', id);
      forms.push(form);
    }
    for (const form of forms) await svc.forms.delete(form._id);
    ctx.audit({ each: forms.map((f) => ({ target: { kind: 'form', id: f._id, name: f.name } })) });
    return { status: 'success', n: forms.length, message: `Deleted ${forms.length} form${forms.length === 1 ? '' : 's'}` };
  };
}
