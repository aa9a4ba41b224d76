import type { Handler } from '@nap/bus';
import { toListQuery } from '@nap/store';
import type { StudioDeps } from './deps';
import { CAMEL_LIST_FIELDS } from './list-fields';

/** `GET /automation-studio/templates`: a page of templates. */
export function getTemplates(deps: StudioDeps): Handler<'studio.getTemplates'> {
  return async (input) => deps.templates.page(toListQuery(input.query, CAMEL_LIST_FIELDS));
}
