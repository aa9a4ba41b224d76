import type { Handler } from '@nap/bus';
import { pageLinks, toListQuery } from '@nap/store';
import type { Filter, ListFields } from '@nap/store';
import type { WorkflowContext } from '../context';
import { toPublicTrigger } from '../domain/trigger-model';

/** What the trigger list filters and sorts on. */
const TRIGGER_LIST_FIELDS: ListFields = {
  filter: ['name', '_id', 'description', 'type', 'actionId', 'routeName', 'topic', 'formId', 'createdBy'],
  sort: ['name', '_id', 'type', 'created', 'lastUpdated'],
  defaultSort: { name: 1, _id: 1 },
};

/** `GET /operations-manager/triggers`: a page of triggers, `{ data, metadata: { total } }`. */
export function getTriggers(svc: WorkflowContext): Handler<'workflow.getTriggers'> {
  return async (input, ctx) => {
    const extra: Filter[] = [];
    // only the triggers of automations the caller may see (their gbac)
    const visible = await svc.automations.visibleAutomationIds(ctx.caller);
    if (visible !== undefined) extra.push({ actionId: { $in: visible } });
    if (input.query.enabled !== undefined) extra.push({ enabled: input.query.enabled });
    if (input.query.actionId !== undefined) extra.push({ actionId: { $eq: input.query.actionId } });
    const query = toListQuery(input.query, TRIGGER_LIST_FIELDS, extra);
    const { items, total } = await svc.triggers.page(query);
    const { skip, limit } = query;
    return {
      message: 'Successfully retrieved items',
      data: items.map(toPublicTrigger),
      metadata: { total, skip, limit, currentPageSize: items.length, ...pageLinks(skip, limit, total) },
    };
  };
}
