import { runServiceProcess } from '@nap/runtime';
import { errorMessage } from '@nap/util';
import { createMopService } from './service';

runServiceProcess('mop', createMopService).catch((err: unknown) => {
  process.stderr.write(`nap-mop failed to start: ${errorMessage(err)}\n`);
  process.exit(1);
});
