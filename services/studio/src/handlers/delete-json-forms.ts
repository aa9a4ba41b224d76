import type { Handler } from '@nap/bus';
import { AppError, isAppError } from '@nap/contracts';
import type { StoredForm } from '@nap/contracts';
import type { StudioContext } from '../context';
import { assertAccess } from '../domain/access';

/**
 * `DELETE /json-forms/forms`: delete the forms of `ids`, all or nothing (every one checked before any
 * is deleted). One deleted by another request meanwhile is gone as asked: the others are deleted
 * still, and the answer and the audit trail count the forms this request deleted.
 */
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
    const deleted: StoredForm[] = [];
    for (const form of forms) {
      try {
        await svc.forms.delete(form._id);
        deleted.push(form);
      } catch (err) {
        // deleted meanwhile by another request (which says so in its own audit record)
        if (!isAppError(err) || err.status !== 404) throw err;
      }
    }
    ctx.audit({ each: deleted.map((f) => ({ target: { kind: 'form', id: f._id, name: f.name } })) });
    return { status: 'success', n: deleted.length, message: `Deleted ${deleted.length} form${deleted.length === 1 ? '' : 's'}` };
  };
}
