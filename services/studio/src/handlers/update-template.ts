import type { Handler } from '@nap/bus';
import { replaceCamel } from '../context';
import type { StudioContext } from '../context';
import { TEMPLATE_KIND } from '../domain/documents';

/** `PUT /automation-studio/templates/:id`: replace a template. */
export function updateTemplate(svc: StudioContext): Handler<'studio.updateTemplate'> {
  return async (input, ctx) =>
    replaceCamel(svc, svc.templates, TEMPLATE_KIND, input.params.id, input.body.update, input.caller, 'body.update', ctx);
}
