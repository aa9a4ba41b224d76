import type { Handler } from '@nap/bus';
import { accessFilter } from '../domain/access';
import { toListQuery } from '@nap/store';
import type { StudioDeps } from './deps';
import { FORM_LIST_FIELDS } from './list-fields';

/** `GET /formbuilder/forms` (addition): a page of the forms the caller may see. */
export function getForms(deps: StudioDeps): Handler<'studio.getForms'> {
  return async (input) => deps.forms.page(toListQuery(input.query, FORM_LIST_FIELDS), accessFilter(input.caller));
}
