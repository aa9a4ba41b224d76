import type { Handler } from '@nap/bus';
import { AppError, auditChanges } from '@nap/contracts';
import { stampOf } from '../context';
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
    const current = await svc.forms.get(id);
    assertAccess(input.caller, current, 'form');
    const form = checkForm(input.body.form, 'body.form');
    if (form._id !== undefined && form._id.toLowerCase() !== current._id.toLowerCase())
      throw new AppError(
        'VALIDATION_FAILED',
        `body.form._id "${form._id}" is not the id of form "${current.name}" ("${current._id}"); leave _id out`,
        {
          details: [{ member: 'body.form._id', message: 'must be the id of the route, or absent' }],
        },
      );
    assertAssignable(input.caller, form.groups, 'form');
    const replacement = {
      ...toStoredForm(form, current._id, stampOf(svc, input.caller)),
      created: current.created,
      created_by: current.created_by,
    };
    const stored = await svc.forms.replace(replacement);
    ctx.audit({ target: { kind: 'form', id: stored._id, name: stored.name }, changes: auditChanges(current, stored) });
    return { status: 'success', message: `Form "${stored.name}" updated`, data: stored };
  };
}
