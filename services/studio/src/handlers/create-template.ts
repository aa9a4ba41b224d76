import type { Handler } from '@nap/bus';
import type { StudioDeps } from './deps';
import { TEMPLATE_KIND, createCamel } from './document-save';

/** `POST /automation-studio/templates`: store a template. */
export function createTemplate(deps: StudioDeps): Handler<'studio.createTemplate'> {
  return async (input) => {
    const data = await createCamel(deps, TEMPLATE_KIND, input.body.template, input.caller, 'body.template');
    return { status: 'Created', message: `Template "${data.name}" created`, data };
  };
}
