import { runServiceProcess } from '@nap/runtime';
import { engineOptionsFromEnv } from './config';
import { createWorkflowService } from './service';

async function main(): Promise<void> {
  // a distributed replica keeps a random id unless NAP_WORKFLOW_SERVER_ID gives it a stable one
  const options = engineOptionsFromEnv(process.env);
  await runServiceProcess('workflow', (deps) => createWorkflowService(deps, options));
}

main().catch((err: unknown) => {
  process.stderr.write(`nap-workflow failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
