import type { Handler } from '@nap/bus';
import type { Page, QueryOptions } from '@nap/contracts';
import { accessFilter } from '../domain/access';
import { toListQuery } from '../domain/list-query';
import type { NamedDoc } from '../store/documents';
import type { StudioDeps } from './deps';
import { FORM_LIST_FIELDS } from './list-fields';

/** `GET /formbuilder/forms` (addition): a page of the forms the caller may see. */
export function getForms(deps: StudioDeps): Handler<unknown, Record<string, string>, QueryOptions> {
  return async (input): Promise<Page<NamedDoc>> => deps.forms.page(toListQuery(input.query, FORM_LIST_FIELDS), accessFilter(input.caller));
}
