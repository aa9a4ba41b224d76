import type { Handler } from '@nap/bus';
import type { WorkerKind, WorkersStatus } from '@nap/contracts';
import type { WorkflowHandlerContext } from './context';

const LABEL: Record<WorkerKind, string> = { jobWorker: 'job worker', taskWorker: 'task worker' };

async function switchWorker(
  c: WorkflowHandlerContext,
  kind: WorkerKind,
  active: boolean,
  by: string,
): Promise<{ status: 'success'; message: string; data: WorkersStatus }> {
  return {
    status: 'success',
    message: `The ${LABEL[kind]} of every engine replica is ${active ? 'active' : 'deactivated'}`,
    data: await c.workers.set(kind, active, by),
  };
}

/** `POST /workflow_engine/activate`: every replica starts tasks again. */
export function activateTaskWorker(c: WorkflowHandlerContext): Handler<'workflow.activateTaskWorker'> {
  return async (_input, ctx) => switchWorker(c, 'taskWorker', true, ctx.caller.username);
}

/** `POST /workflow_engine/deactivate`: no replica starts a task (tasks in flight finish). */
export function deactivateTaskWorker(c: WorkflowHandlerContext): Handler<'workflow.deactivateTaskWorker'> {
  return async (_input, ctx) => switchWorker(c, 'taskWorker', false, ctx.caller.username);
}

/** `POST /workflow_engine/jobWorker/activate`: every replica claims jobs again. */
export function activateJobWorker(c: WorkflowHandlerContext): Handler<'workflow.activateJobWorker'> {
  return async (_input, ctx) => switchWorker(c, 'jobWorker', true, ctx.caller.username);
}

/** `POST /workflow_engine/jobWorker/deactivate`: no replica claims a job (new jobs wait unclaimed). */
export function deactivateJobWorker(c: WorkflowHandlerContext): Handler<'workflow.deactivateJobWorker'> {
  return async (_input, ctx) => switchWorker(c, 'jobWorker', false, ctx.caller.username);
}
