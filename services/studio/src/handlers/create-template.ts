import type { Handler } from '@nap/bus';
import { createCamel } from '../context';
import type { StudioContext } from '../context';
import { TEMPLATE_KIND } from '../domain/documents';

/** `POST /automation-studio/templates`: store a template; answered under data and under created (where ipctl reads it). */
export function createTemplate(svc: StudioContext): Handler<'studio.createTemplate'> {
  return async (input) => {
    const data = await createCamel(svc, svc.templates, TEMPLATE_KIND, input.body.template, input.caller, 'body.template');
    return { status: 'Created', message: `Template "${data.name}" created`, data, created: data };
  };
}
