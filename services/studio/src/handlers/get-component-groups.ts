import type { Handler } from '@nap/bus';
import { toListQuery } from '@nap/store';
import type { StudioDeps } from './deps';
import { CAMEL_LIST_FIELDS } from './list-fields';

/** `GET /automation-studio/component-groups`: a page of component groups. */
export function getComponentGroups(deps: StudioDeps): Handler<'studio.getComponentGroups'> {
  return async (input) => deps.componentGroups.page(toListQuery(input.query, CAMEL_LIST_FIELDS));
}
