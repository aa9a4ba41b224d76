import type { Handler } from '@nap/bus';
import type { StudioDeps } from './deps';
import { TEMPLATE_KIND, createCamel } from './document-save';
import { importEach } from './import-each';

/** `POST /automation-studio/templates/import`: store each template on its own, reporting per item. */
export function importTemplates(deps: StudioDeps): Handler<'studio.importTemplates'> {
  return async (input) =>
    importEach(input.body.templates, { one: 'template', many: 'templates' }, async (item, index) => ({
      created: await createCamel(deps, TEMPLATE_KIND, item, input.caller, `body.templates[${index}]`),
    }));
}
