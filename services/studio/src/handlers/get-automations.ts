import type { Handler } from '@nap/bus';
import { accessFilter } from '../domain/access';
import { toListQuery } from '@nap/store';
import type { ListFields } from '@nap/store';
import type { StudioDeps } from './deps';

export const WORKFLOW_LIST_FIELDS: ListFields = {
  filter: ['name', '_id', 'description', 'type', 'created_by', 'last_updated_by'],
  sort: ['name', '_id', 'created', 'last_updated'],
  defaultSort: { name: 1 },
};

/** `GET /automation-studio/automations`: a page of the workflows the caller may see. */
export function getAutomations(deps: StudioDeps): Handler<'studio.getAutomations'> {
  return async (input) => deps.workflows.page(toListQuery(input.query, WORKFLOW_LIST_FIELDS), accessFilter(input.caller));
}
