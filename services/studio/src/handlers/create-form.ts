import type { Handler } from '@nap/bus';
import { createStoredForm } from '../context';
import type { StudioContext } from '../context';

/** `POST /formbuilder/forms` (addition): store a form; a brought `_id` is kept, so one that is not a UUID v4 is refused. */
export function createForm(svc: StudioContext): Handler<'studio.createForm'> {
  return async (input) => {
    const data = await createStoredForm(svc, input.body.form, input.caller, 'body.form', 'refuse');
    return { status: 'Created', message: `Form "${data.name}" created`, data };
  };
}
