import type { Handler } from '@nap/bus';
import { createStoredForm } from '../context';
import type { StudioContext } from '../context';

/** `POST /formbuilder/forms` (addition): store a form. */
export function createForm(svc: StudioContext): Handler<'studio.createForm'> {
  return async (input) => {
    const data = await createStoredForm(svc, input.body.form, input.caller, 'body.form');
    return { status: 'Created', message: `Form "${data.name}" created`, data };
  };
}
