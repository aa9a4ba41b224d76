#!/usr/bin/env node
'use strict';
// A checked-in shim, so that npm links the `nap-data` bin at install time, before the build.
let tool;
try {
  tool = require('../dist/nap-data/nap-data.js');
} catch (err) {
  if (err && err.code === 'MODULE_NOT_FOUND' && String(err.message).includes('nap-data.js')) {
    process.stderr.write('nap-data: not built yet: run `npm run build` at the repository root\n');
    process.exit(4);
  }
  throw err;
}
tool.run(process.argv);
