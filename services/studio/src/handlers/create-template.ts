import type { Handler } from '@nap/bus';
import type { CreatedResult } from '@nap/contracts';
import type { NamedDoc } from '../store/documents';
import type { StudioDeps } from './deps';
import { TEMPLATE_KIND, createCamel } from './document-save';

/** `POST /automation-studio/templates`: store a template. */
export function createTemplate(deps: StudioDeps): Handler<{ template: unknown }> {
  return async (input): Promise<CreatedResult<NamedDoc>> => {
    const data = await createCamel(deps, TEMPLATE_KIND, input.body.template, input.caller, 'body.template');
    return { status: 'Created', message: `Template "${data.name}" created`, data };
  };
}
