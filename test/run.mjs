#!/usr/bin/env node
// `npm test`: the whole suite. Builds (which typechecks every package), lints, then runs jest
// across the workspace with suites in parallel. Prerequisites that can be installed are installed.
import { ensureExampleTools, ensureNatsServer, ensurePrometheus, ensurePythonTemplating, installAndBuild, run } from './prerequisites.mjs';

ensureNatsServer();
ensureExampleTools();
ensurePythonTemplating();
ensurePrometheus();
installAndBuild();
run('npx', ['tsc', '-p', 'tsconfig.json']);
run('npx', ['eslint', '.', '--max-warnings=0']);
run('npx', ['prettier', '--check', '--log-level=warn', '**/*.{ts,tsx,js,mjs,cjs}']);
const jestArgs = ['jest', '--ci', `--maxWorkers=${process.env.NAP_TEST_WORKERS ?? '2'}`, ...process.argv.slice(2)];
run('npx', jestArgs);
