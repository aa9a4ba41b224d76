import type { Handler } from '@nap/bus';
import type { WorkflowContext } from '../context';

/** `POST /workflow_engine/jobWorker/deactivate`: no replica claims a job (new jobs wait unclaimed). */
export function deactivateJobWorker(svc: WorkflowContext): Handler<'workflow.deactivateJobWorker'> {
  return async (_input, ctx) => ({
    status: 'success',
    message: 'The job worker of every engine replica is deactivated',
    data: await svc.workers.set('jobWorker', false, ctx.caller.username),
  });
}
