import { runServiceProcess } from '@nap/runtime';
import { createOrchProxyService } from './service';

runServiceProcess('orch-proxy', createOrchProxyService).catch((err: unknown) => {
  process.stderr.write(`nap-orch-proxy failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
