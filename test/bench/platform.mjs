// The standalone platform for the benchmark, in a process of its own; prints its url when ready.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { startPlatform } = require('../../deploy/standalone/dist/index.js');
const { loadConfig } = require('../../packages/runtime/dist/index.js');

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nap-bench-'));
const config = {
  ...loadConfig({
    NAP_DATA_DIR: dataDir,
    NAP_PORT: '0',
    NAP_ADMIN_PASSWORD: process.env.NAP_ADMIN_PASSWORD,
    ...(process.env.NAP_AUDIT ? { NAP_AUDIT: process.env.NAP_AUDIT } : {}),
  }),
  logLevel: 'warn',
};
const platform = await startPlatform({ config });
console.log(`listening ${platform.url}`);
process.on('SIGTERM', () =>
  platform.stop().then(() => {
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  }),
);
