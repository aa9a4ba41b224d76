import type { Handler } from '@nap/bus';
import { AppError, auditChanges } from '@nap/contracts';
import type { Caller, FormInput, StoredForm } from '@nap/contracts';
import { changedAfter } from '@nap/util';
import { assertFormKeysFree, formIdTaken, stampOf } from '../context';
import type { StudioContext } from '../context';
import { assertAccess, assertAssignable } from '../domain/access';
import { checkForm, toStoredForm } from '../domain/documents';

/**
 * `PUT /formbuilder/forms/:id` (addition): replace a form, checked as on creation; its id and
 * creation stamp stay.
 */
export function updateForm(svc: StudioContext): Handler<'studio.updateForm'> {
  return async (input, ctx) => {
    const { id } = input.params;
    const form = checkForm(input.body.form, 'body.form');
    // read, check, write only if unchanged meanwhile: a change made between (another PUT, groups
    // narrowed so that the caller may no longer change it) is never written over
    for (let attempt = 1; ; attempt++) {
      const current = await svc.forms.get(id);
      assertAccess(input.caller, current, 'form', id);
      const stored = await replaceForm(svc, current, form, input.caller);
      if (stored !== null) {
        ctx.audit({ target: { kind: 'form', id: stored._id, name: stored.name }, changes: auditChanges(current, stored) });
        return { status: 'success', message: `Form "${stored.name}" updated`, data: stored };
      }
      if (attempt >= UPDATE_ATTEMPTS)
        throw new AppError('CONFLICT', `Form "${current.name}" kept changing while it was being updated; try again`);
    }
  };
}

/** Reads of a form a change makes before it gives up (as the other update routes). */
const UPDATE_ATTEMPTS = 20;

/** `current` replaced by `form` if it is still as read: the form stored, or null when it changed meanwhile. */
async function replaceForm(svc: StudioContext, current: StoredForm, form: FormInput, caller: Caller): Promise<StoredForm | null> {
  if (form._id !== undefined && form._id.toLowerCase() !== current._id.toLowerCase())
    throw new AppError(
      'VALIDATION_FAILED',
      `body.form._id "${form._id}" is not the id of form "${current.name}" ("${current._id}"); leave _id out`,
      {
        details: [{ member: 'body.form._id', message: 'must be the id of the route, or absent' }],
      },
    );
  assertAssignable(caller, form.groups, 'form');
  await assertFormKeysFree(svc, form, current._id, 'body.form', current);
  const stamp = stampOf(svc, caller);
  const replacement = {
    ...toStoredForm(form, current._id, { ...stamp, at: changedAfter(current.last_updated, Date.parse(stamp.at)) }),
    created: current.created,
    created_by: current.created_by,
  };
  try {
    return await svc.forms.replaceUnchanged(replacement, current, 'last_updated');
  } catch (err) {
    throw formIdTaken(err, form, 'body.form');
  }
}
