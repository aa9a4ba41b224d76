#!/usr/bin/env node
// `npm run test:faults`: the fault campaign. Builds the platform (the campaign starts the built
// dist/ entry points as real processes, as users do), makes sure nats-server is there, then runs
// every test file of test/faults one after the other and prints the figures of each scenario.
// Not part of `npm test`; CI runs it after `npm test` in the same job.
import { ensureNatsServer, installAndBuild, run } from '../prerequisites.mjs';

ensureNatsServer();
installAndBuild();
run('npx', ['jest', '--ci', '--runInBand', '--config', 'test/faults/jest.config.js', ...process.argv.slice(2)]);
