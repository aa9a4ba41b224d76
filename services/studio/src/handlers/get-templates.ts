import type { Handler } from '@nap/bus';
import type { Page, QueryOptions } from '@nap/contracts';
import { toListQuery } from '../domain/list-query';
import type { NamedDoc } from '../store/documents';
import type { StudioDeps } from './deps';
import { CAMEL_LIST_FIELDS } from './list-fields';

/** `GET /automation-studio/templates`: a page of templates. */
export function getTemplates(deps: StudioDeps): Handler<unknown, Record<string, string>, QueryOptions> {
  return async (input): Promise<Page<NamedDoc>> => deps.templates.page(toListQuery(input.query, CAMEL_LIST_FIELDS));
}
