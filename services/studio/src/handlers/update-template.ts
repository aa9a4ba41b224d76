import type { Handler } from '@nap/bus';
import type { StudioDeps } from './deps';
import { TEMPLATE_KIND, replaceCamel } from './document-save';

/** `PUT /automation-studio/templates/:id`: replace a template. */
export function updateTemplate(deps: StudioDeps): Handler<'studio.updateTemplate'> {
  return async (input) => replaceCamel(deps, TEMPLATE_KIND, input.params.id, input.body.update, input.caller, 'body.update');
}
