// jest's globalTeardown: removes the suites' temporary directory in memory (memory-tmpdir.cjs).
module.exports = require('./memory-tmpdir.cjs').teardown;
