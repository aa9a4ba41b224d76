import type { Handler } from '@nap/bus';
import { toListQuery } from '@nap/store';
import type { StudioContext } from '../context';
import { CAMEL_LIST_FIELDS } from '../domain/list-fields';

/** `GET /automation-studio/templates`: a page of templates. */
export function getTemplates(svc: StudioContext): Handler<'studio.getTemplates'> {
  return async (input) => svc.templates.page(toListQuery(input.query, CAMEL_LIST_FIELDS));
}
