import type { Handler } from '@nap/bus';
import { createCamel } from '../context';
import type { StudioContext } from '../context';
import { TEMPLATE_KIND } from '../domain/documents';
import { importEach } from '../domain/import-results';

/** `POST /automation-studio/templates/import`: store each template on its own, reporting per item. */
export function importTemplates(svc: StudioContext): Handler<'studio.importTemplates'> {
  return async (input, ctx) =>
    importEach(input.body.templates, { one: 'template', many: 'templates' }, { ctx, kind: 'template' }, async (item, index) => ({
      created: await createCamel(svc, svc.templates, TEMPLATE_KIND, item, input.caller, `body.templates[${index}]`),
    }));
}
