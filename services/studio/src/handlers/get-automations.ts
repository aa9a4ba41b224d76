import type { Handler } from '@nap/bus';
import { toListQuery } from '@nap/store';
import type { StudioContext } from '../context';
import { accessFilter } from '../domain/access';
import { WORKFLOW_LIST_FIELDS } from '../domain/list-fields';

/** `GET /automation-studio/automations`: a page of the workflows the caller may see. */
export function getAutomations(svc: StudioContext): Handler<'studio.getAutomations'> {
  return async (input) => svc.workflows.page(toListQuery(input.query, WORKFLOW_LIST_FIELDS), accessFilter(input.caller));
}
