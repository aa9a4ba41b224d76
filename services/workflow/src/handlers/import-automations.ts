import type { Handler } from '@nap/bus';
import type { WorkflowHandlerContext } from './context';

/** Operation 2: imports automation documents, each reported on its own; the answer's status stays success. */
export function importAutomations(c: WorkflowHandlerContext): Handler<'workflow.importAutomations'> {
  return async (input, ctx) => c.automations.import(input.body.automations, ctx.caller);
}
