import { runServiceProcess } from '@nap/runtime';
import { errorMessage } from '@nap/util';
import { createStudioService } from './service';

runServiceProcess('studio', createStudioService).catch((err: unknown) => {
  process.stderr.write(`nap-studio failed to start: ${errorMessage(err)}\n`);
  process.exit(1);
});
