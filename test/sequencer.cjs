// Jest runs the longest suites first so that no worker is left alone with a long suite at the end.
// It knows how long a suite took from its own cache of the last run on this machine; a fresh clone
// (CI) has none, and jest then orders by file size, which put the 2-minute benchmark smoke among
// the last suites and one core idle while it ran. Where the cache has no time for a suite, this
// sequencer takes it from test/suite-times.json, measured on a fresh clone of 2 cores and refreshed
// with `node scripts/suite-times.mjs` after a full run. A suite that is in neither runs first, as
// jest does with suites it has never timed.
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;
const { suites } = require('./suite-times.json');

const ROOT = path.resolve(__dirname, '..');

class MeasuredFirst extends Sequencer {
  time(test) {
    return super.time(test) ?? suites[path.relative(ROOT, test.path)];
  }
}

module.exports = MeasuredFirst;
