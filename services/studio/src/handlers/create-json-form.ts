import type { Handler } from '@nap/bus';
import { asJsonForm, createStoredForm } from '../context';
import type { StudioContext } from '../context';

/**
 * `POST /json-forms/forms`: store the bare form, as `POST /formbuilder/forms` does; the empty `id`
 * ipctl sends is left out (the audit members it sends are the service's to set anyway).
 */
export function createJsonForm(svc: StudioContext): Handler<'studio.createJsonForm'> {
  return async (input) => {
    const { id, ...form } = input.body;
    const doc = await createStoredForm(svc, id === '' || id === undefined ? form : input.body, input.caller, 'body');
    return { status: 'success', n: 1, message: `Form "${doc.name}" created`, doc: asJsonForm(doc) };
  };
}
