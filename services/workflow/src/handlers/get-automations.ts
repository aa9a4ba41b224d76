import type { Handler } from '@nap/bus';
import { pageLinks, toListQuery } from '@nap/store';
import type { ListFields } from '@nap/store';
import type { WorkflowContext } from '../context';

const AUTOMATION_LIST_FIELDS: ListFields = {
  filter: ['name', '_id', 'description', 'componentType', 'componentName', 'componentId', 'createdBy'],
  sort: ['name', '_id', 'created', 'lastUpdated'],
  defaultSort: { name: 1, _id: 1 },
};

/** `GET /operations-manager/automations`: a page of automations in the envelope. */
export function getAutomations(svc: WorkflowContext): Handler<'workflow.getAutomations'> {
  return async (input, ctx) => {
    const query = toListQuery(input.query, AUTOMATION_LIST_FIELDS);
    const { items, total } = await svc.automations.pageAutomations(query, ctx.caller);
    return {
      message: 'Successfully retrieved items',
      data: items,
      metadata: {
        total,
        skip: query.skip,
        limit: query.limit,
        currentPageSize: items.length,
        ...pageLinks(query.skip, query.limit, total),
      },
    };
  };
}
