// The fault campaign (`npm run test:faults`, not part of `npm test`): every test file under
// test/faults, one at a time (each starts the platform as real processes and kills parts of it),
// with the figures of each scenario printed at the end.
const os = require('node:os');
const path = require('node:path');
const base = require('../../jest.config.js');

process.env.NAP_FAULTS_FIGURES ??= path.join(os.tmpdir(), `nap-faults-figures-${process.pid}.jsonl`);

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  rootDir: path.resolve(__dirname, '../..'),
  testMatch: ['<rootDir>/test/faults/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  testSequencer: '<rootDir>/test/faults/support/sequencer.js',
  globalSetup: '<rootDir>/test/faults/support/global-setup.js',
  reporters: ['default', ['<rootDir>/test/faults/support/figures-reporter.js', { file: process.env.NAP_FAULTS_FIGURES }]],
  testTimeout: 900_000,
  maxWorkers: 1,
};
