import { runServiceProcess } from '@nap/runtime';
import { createWorkflowService } from './service';
import type { WorkflowServiceOptions } from './service';

/** Engine settings from the environment: `NAP_WORKFLOW_LEASE_MS` (claim lifetime), `NAP_WORKFLOW_SERVER_ID`. */
function engineOptions(env: NodeJS.ProcessEnv): WorkflowServiceOptions {
  const options: WorkflowServiceOptions = {};
  const lease = Number(env.NAP_WORKFLOW_LEASE_MS);
  if (Number.isInteger(lease) && lease >= 100) options.leaseMs = lease;
  if (env.NAP_WORKFLOW_SERVER_ID) options.serverId = env.NAP_WORKFLOW_SERVER_ID;
  return options;
}

runServiceProcess('workflow', (deps) => createWorkflowService(deps, engineOptions(process.env))).catch((err: unknown) => {
  process.stderr.write(`nap-workflow failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
