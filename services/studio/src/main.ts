import { runServiceProcess } from '@nap/runtime';
import { createStudioService } from './service';

runServiceProcess('studio', createStudioService).catch((err: unknown) => {
  process.stderr.write(`nap-studio failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
