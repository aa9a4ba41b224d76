import type { Handler } from '@nap/bus';
import type { WorkflowContext } from '../context';

/** `POST /workflow_engine/jobWorker/activate`: every replica claims jobs again. */
export function activateJobWorker(svc: WorkflowContext): Handler<'workflow.activateJobWorker'> {
  return async (_input, ctx) => ({
    status: 'success',
    message: 'The job worker of every engine replica is active',
    data: await svc.workers.set('jobWorker', true, ctx.caller.username),
  });
}
