import type { Handler } from '@nap/bus';
import { saveAutomation } from '../context';
import type { WorkflowContext } from '../context';

/**
 * `POST /operations-manager/automations`: creates an automation, with the triggers its `triggers`
 * member holds; 409 AUTOMATION_ALREADY_EXISTS for a name in use.
 */
export function createAutomation(svc: WorkflowContext): Handler<'workflow.createAutomation'> {
  return async (input, ctx) => {
    const { automation: data } = await saveAutomation(svc, input.body.automation, 'body.automation', ctx.caller, false);
    return { status: 'Created', message: `Automation "${data.name}" created`, data };
  };
}
