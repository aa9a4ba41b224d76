import type { Handler } from '@nap/bus';
import { createStoredForm } from '../context';
import type { StudioContext } from '../context';
import { importEach } from '../domain/import-results';

/** `POST /json-forms/import/forms`: as `POST /formbuilder/forms/import`, each form on its own, reported per item. */
export function importJsonForms(svc: StudioContext): Handler<'studio.importJsonForms'> {
  return async (input, ctx) =>
    importEach(input.body.forms, { one: 'form', many: 'forms' }, { ctx, kind: 'form' }, async (item, index) => ({
      created: await createStoredForm(svc, item, input.caller, `body.forms[${index}]`),
    }));
}
