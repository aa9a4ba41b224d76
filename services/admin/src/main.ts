import { runServiceProcess } from '@nap/runtime';
import { createAdminService } from './service';

runServiceProcess('admin', (deps) => createAdminService(deps)).catch((err: unknown) => {
  process.stderr.write(`nap-admin failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
