import type { Handler } from '@nap/bus';
import type { WorkflowHandlerContext } from './context';

/** Operation 3: creates an automation; 409 AUTOMATION_ALREADY_EXISTS for a name in use. */
export function createAutomation(c: WorkflowHandlerContext): Handler<'workflow.createAutomation'> {
  return async (input, ctx) => {
    const data = await c.automations.create(input.body.automation, ctx.caller);
    return { status: 'Created', message: `Automation "${data.name}" created`, data };
  };
}
