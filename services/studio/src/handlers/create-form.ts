import type { Handler } from '@nap/bus';
import type { StudioDeps } from './deps';
import { createStoredForm } from './form-save';

/** `POST /formbuilder/forms` (addition): store a form. */
export function createForm(deps: StudioDeps): Handler<'studio.createForm'> {
  return async (input) => {
    const data = await createStoredForm(deps, input.body.form, input.caller, 'body.form');
    return { status: 'Created', message: `Form "${data.name}" created`, data };
  };
}
