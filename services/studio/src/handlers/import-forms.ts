import type { Handler } from '@nap/bus';
import { createStoredForm } from '../context';
import type { StudioContext } from '../context';
import { importEach } from '../domain/import-results';

/** `POST /formbuilder/forms/import` (addition): store each form on its own, reporting per item. */
export function importForms(svc: StudioContext): Handler<'studio.importForms'> {
  return async (input, ctx) =>
    importEach(input.body.forms, { one: 'form', many: 'forms' }, { ctx, kind: 'form' }, async (item, index) => ({
      created: await createStoredForm(svc, item, input.caller, `body.forms[${index}]`),
    }));
}
