import type { Handler } from '@nap/bus';
import { accessFilter } from '../domain/access';
import { toListQuery } from '@nap/store';
import type { StudioContext } from '../context';
import { FORM_LIST_FIELDS } from '../domain/list-fields';

/** `GET /formbuilder/forms` (addition): a page of the forms the caller may see. */
export function getForms(svc: StudioContext): Handler<'studio.getForms'> {
  return async (input) => svc.forms.page(toListQuery(input.query, FORM_LIST_FIELDS), accessFilter(input.caller));
}
