import type { Handler } from '@nap/bus';
import { toListQuery } from '@nap/store';
import type { StudioContext } from '../context';
import { CAMEL_LIST_FIELDS } from '../domain/list-fields';

/** `GET /automation-studio/component-groups`: a page of component groups. */
export function getComponentGroups(svc: StudioContext): Handler<'studio.getComponentGroups'> {
  return async (input) => svc.componentGroups.page(toListQuery(input.query, CAMEL_LIST_FIELDS));
}
