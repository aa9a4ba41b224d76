import { runServiceProcess } from '@nap/runtime';
import { createMopService } from './service';

runServiceProcess('mop', createMopService).catch((err: unknown) => {
  process.stderr.write(`nap-mop failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
