import type { Handler } from '@nap/bus';
import { pageLinks } from '@nap/store';
import type { WorkflowHandlerContext } from './context';

/** `GET /operations-manager/triggers`: a page of triggers, `{ data, metadata: { total } }`. */
export function getTriggers(c: WorkflowHandlerContext): Handler<'workflow.getTriggers'> {
  return async (input) => {
    const { items, total, skip, limit } = await c.triggers.list(input.query);
    return {
      message: 'Successfully retrieved items',
      data: items,
      metadata: { total, skip, limit, currentPageSize: items.length, ...pageLinks(skip, limit, total) },
    };
  };
}
