import type { Handler } from '@nap/bus';
import type { WorkflowHandlerContext } from './context';

/** `PUT /operations-manager/triggers`: each trigger stored on its own, reported per item. */
export function importTriggers(c: WorkflowHandlerContext): Handler<'workflow.importTriggers'> {
  return async (input, ctx) => c.triggers.import(input.body.triggers, ctx.caller);
}
