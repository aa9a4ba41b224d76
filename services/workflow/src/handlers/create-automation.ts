import type { Handler } from '@nap/bus';
import type { WorkflowContext } from '../context';
import { toAutomationRecord } from '../domain/automations';

/** `POST /operations-manager/automations`: creates an automation; 409 AUTOMATION_ALREADY_EXISTS for a name in use. */
export function createAutomation(svc: WorkflowContext): Handler<'workflow.createAutomation'> {
  return async (input, ctx) => {
    const data = await svc.automations.insertAutomation(toAutomationRecord(input.body.automation, ctx.caller, Date.now(), false));
    return { status: 'Created', message: `Automation "${data.name}" created`, data };
  };
}
