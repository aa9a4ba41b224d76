import type { Handler } from '@nap/bus';
import type { WorkflowContext } from '../context';

/** `POST /workflow_engine/activate`: every replica starts tasks again. */
export function activateTaskWorker(svc: WorkflowContext): Handler<'workflow.activateTaskWorker'> {
  return async (_input, ctx) => ({
    status: 'success',
    message: 'The task worker of every engine replica is active',
    data: await svc.workers.set('taskWorker', true, ctx.caller.username),
  });
}
