import type { Handler } from '@nap/bus';
import type { CreatedResult } from '@nap/contracts';
import type { NamedDoc } from '../store/documents';
import type { StudioDeps } from './deps';
import { createStoredForm } from './form-save';

/** `POST /formbuilder/forms` (addition): store a form. */
export function createForm(deps: StudioDeps): Handler<{ form: unknown }> {
  return async (input): Promise<CreatedResult<NamedDoc>> => {
    const data = await createStoredForm(deps, input.body.form, input.caller, 'body.form');
    return { status: 'Created', message: `Form "${data.name}" created`, data };
  };
}
