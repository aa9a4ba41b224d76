import type { Handler } from '@nap/bus';
import { AppError } from '@nap/contracts';
import { assertAccess } from '../domain/access';
import { asForm } from '../domain/documents';
import type { StudioContext } from '../context';

/**
 * `POST /formbuilder/forms/export`: the form with this `_id` and/or `name` (both must
 * match when both are given), as the spec's Form (`children` and `elements` always present);
 * 404 `FORM_NOT_FOUND` otherwise.
 */
export function exportForm(svc: StudioContext): Handler<'studio.exportForm'> {
  return async (input) => {
    const { _id: id, name } = input.body.options;
    // ids are stored in lower case; the schema accepts either case
    const form =
      id !== undefined ? await svc.forms.findById(id.toLowerCase()) : name !== undefined ? await svc.forms.findByName(name) : null;
    if (form === null || (name !== undefined && form.name !== name)) {
      throw new AppError(
        'FORM_NOT_FOUND',
        `No form with ${[id !== undefined ? `_id "${id}"` : '', name !== undefined ? `name "${name}"` : ''].filter(Boolean).join(' and ')}`,
      );
    }
    assertAccess(input.caller, form, 'form', id ?? form.name);
    return asForm(form);
  };
}
