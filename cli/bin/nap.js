#!/usr/bin/env node
'use strict';
// A checked-in shim, so that npm links the `nap` bin at install time, before the bundle is built.
let cli;
try {
  cli = require('../dist/nap.js');
} catch (err) {
  if (err && err.code === 'MODULE_NOT_FOUND' && String(err.message).includes('dist/nap.js')) {
    process.stderr.write('nap: the CLI is not built yet: run `npm run build` at the repository root\n');
    process.exit(4);
  }
  throw err;
}
cli.run();
