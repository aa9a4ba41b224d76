import type { Handler } from '@nap/bus';
import type { WorkflowHandlerContext } from './context';

/** `GET /workflow_engine/workers/status`: both workers, platform-wide and per replica. */
export function getWorkersStatus(c: WorkflowHandlerContext): Handler<'workflow.getWorkersStatus'> {
  return async () => c.workers.status();
}
