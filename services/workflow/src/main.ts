import { runServiceProcess } from '@nap/runtime';
import { createWorkflowService } from './service';

runServiceProcess('workflow', createWorkflowService).catch((err: unknown) => {
  process.stderr.write(`nap-workflow failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
