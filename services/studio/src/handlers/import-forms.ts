import type { Handler } from '@nap/bus';
import type { StudioDeps } from './deps';
import { createStoredForm } from './form-save';
import { importEach } from './import-each';

/** `POST /formbuilder/forms/import` (addition): store each form on its own, reporting per item. */
export function importForms(deps: StudioDeps): Handler<'studio.importForms'> {
  return async (input) =>
    importEach(input.body.forms, { one: 'form', many: 'forms' }, async (item, index) => ({
      created: await createStoredForm(deps, item, input.caller, `body.forms[${index}]`),
    }));
}
