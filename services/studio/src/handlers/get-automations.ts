import type { Handler } from '@nap/bus';
import type { Page, QueryOptions } from '@nap/contracts';
import { accessFilter } from '../domain/access';
import { toListQuery } from '../domain/list-query';
import type { ListFields } from '../domain/list-query';
import type { StoredWorkflow, StudioDeps } from './deps';

export const WORKFLOW_LIST_FIELDS: ListFields = {
  filter: ['name', '_id', 'description', 'type', 'created_by', 'last_updated_by'],
  sort: ['name', '_id', 'created', 'last_updated'],
  defaultSort: { name: 1 },
};

/** `GET /automation-studio/automations`: a page of the workflows the caller may see. */
export function getAutomations(deps: StudioDeps): Handler<unknown, Record<string, string>, QueryOptions> {
  return async (input): Promise<Page<StoredWorkflow>> => deps.workflows.page(toListQuery(input.query, WORKFLOW_LIST_FIELDS), accessFilter(input.caller));
}
