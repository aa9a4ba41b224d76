import type { Handler } from '@nap/bus';
import type { WorkflowContext } from '../context';

/** `GET /workflow_engine/workers/status`: both workers, platform-wide and per replica. */
export function getWorkersStatus(svc: WorkflowContext): Handler<'workflow.getWorkersStatus'> {
  return async () => svc.workers.status();
}
