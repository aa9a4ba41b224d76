import type { Handler } from '@nap/bus';
import { createWorkflow } from '../context';
import type { StudioContext } from '../context';

/** `POST /automation-studio/automations`: validate and store a workflow document; answered under data and under created (where ipctl reads it). */
export function createAutomation(svc: StudioContext): Handler<'studio.createAutomation'> {
  return async (input) => {
    const { doc, warnings } = await createWorkflow(svc, input.body.automation, input.caller, 'body.automation');
    const risky = warnings.length === 0 ? '' : ` with ${warnings.length} warning${warnings.length === 1 ? '' : 's'}`;
    return { status: 'Created', message: `Workflow "${doc.name}" created${risky}`, data: doc, created: doc, warnings };
  };
}
