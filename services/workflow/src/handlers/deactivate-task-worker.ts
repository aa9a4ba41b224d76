import type { Handler } from '@nap/bus';
import type { WorkflowContext } from '../context';

/** `POST /workflow_engine/deactivate`: no replica starts a task (tasks in flight finish). */
export function deactivateTaskWorker(svc: WorkflowContext): Handler<'workflow.deactivateTaskWorker'> {
  return async (_input, ctx) => ({
    status: 'success',
    message: 'The task worker of every engine replica is deactivated',
    data: await svc.workers.set('taskWorker', false, ctx.caller.username),
  });
}
