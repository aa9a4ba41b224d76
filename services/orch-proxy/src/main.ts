import { runServiceProcess } from '@nap/runtime';
import { errorMessage } from '@nap/util';
import { createOrchProxyService } from './service';

runServiceProcess('orch-proxy', createOrchProxyService).catch((err: unknown) => {
  process.stderr.write(`nap-orch-proxy failed to start: ${errorMessage(err)}\n`);
  process.exit(1);
});
