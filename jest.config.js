// One jest run over the whole workspace. Sources are compiled by swc on the fly (no build needed
// for in-process tests); tests that spawn processes use the built dist/ (npm test builds first).
const swc = ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }];

const packageDirs = {
  contracts: 'contracts',
  bus: 'packages/bus',
  store: 'packages/store',
  telemetry: 'packages/telemetry',
  'json-query': 'packages/json-query',
  util: 'packages/util',
  testing: 'packages/testing',
  lab: 'packages/lab',
  runtime: 'packages/runtime',
  gateway: 'gateway',
  standalone: 'deploy/standalone',
  workflow: 'services/workflow',
  mop: 'services/mop',
  'gateway-devices': 'services/gateway-devices',
  'orch-proxy': 'services/orch-proxy',
  admin: 'services/admin',
  studio: 'services/studio',
};

// `@nap/<package>/dist/<module>` (a module of a package without its index: the CLI, the console, the
// audit thread) is its source too, so that a test loads one copy of each module (one AppError class)
const moduleNameMapper = Object.fromEntries(
  Object.entries(packageDirs).flatMap(([name, dir]) => [
    [`^@nap/${name}$`, `<rootDir>/${dir}/src/index.ts`],
    [`^@nap/${name}/dist/(.*)$`, `<rootDir>/${dir}/src/$1`],
  ]),
);

/** Dependencies published as ES modules only, which jest's CommonJS runtime cannot load untransformed. */
const ESM_ONLY = '(openid-client|oauth4webapi|jose|oidc-provider)';

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  // ES-module-only packages (OIDC: openid-client and its peers) are compiled to CommonJS like the sources
  transform: { '^.+\\.ts$': swc, [`/node_modules/${ESM_ONLY}/.+\\.js$`]: swc },
  transformIgnorePatterns: [`/node_modules/(?!${ESM_ONLY}/)`],
  moduleNameMapper,
  testMatch: ['<rootDir>/**/src/**/*.test.ts', '<rootDir>/**/test/**/*.test.ts'],
  // the fault campaign runs on its own (npm run test:faults, test/faults/jest.config.js)
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '<rootDir>/test/bench/', '<rootDir>/test/faults/'],
  modulePathIgnorePatterns: ['<rootDir>/.*/dist/'],
  testTimeout: 30_000,
  // the suites' temporary files (stores, browser profiles) on a disk in memory, where one is (test/memory-tmpdir.cjs)
  globalSetup: '<rootDir>/test/memory-tmpdir.cjs',
  globalTeardown: '<rootDir>/test/memory-tmpdir-teardown.cjs',
  // longest suites first, from jest's record of the last run or, on a fresh clone, test/suite-times.json
  testSequencer: '<rootDir>/test/sequencer.cjs',
  // each module compiled once per worker, not once per test file (test/jest-runtime.cjs)
  runtime: '<rootDir>/test/jest-runtime.cjs',
};
