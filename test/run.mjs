#!/usr/bin/env node
// `npm test`: the whole suite. Installs the prerequisites that can be installed, builds (esbuild,
// seconds), then checks types, lint and formatting side by side (each is one process on one core),
// then runs jest across the workspace with suites in parallel. Says how long each step took.
import { spawn, spawnSync } from 'node:child_process';
import { ensureExampleTools, ensureNatsServer, ensurePrometheus, ensurePythonTemplating, installAndBuild } from './prerequisites.mjs';

const started = Date.now();
const took = [];
/** Runs `step` (synchronous) and notes how long it took. */
function timed(name, step) {
  const t = Date.now();
  step();
  took.push([name, Date.now() - t]);
}

/** Runs a command with its output held back, printed whole once it ends (so that checks run side by side do not interleave). */
function quietly(name, cmd, args) {
  return new Promise((resolve) => {
    const t = Date.now();
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code, signal) => {
      took.push([name, Date.now() - t]);
      if (output.trim()) process.stdout.write(`\n── ${name} (${cmd} ${args.join(' ')})\n${output}`);
      resolve({ name, ok: code === 0, code: code ?? signal });
    });
  });
}

function summary() {
  const line = took.map(([name, ms]) => `${name} ${(ms / 1000).toFixed(0)} s`).join(', ');
  console.log(`\nnpm test: ${line}; ${((Date.now() - started) / 1000).toFixed(0)} s in all`);
}

timed('prerequisites', () => {
  ensureNatsServer();
  ensureExampleTools();
  ensurePythonTemplating();
  ensurePrometheus();
});
timed('build', installAndBuild);
const checks = await Promise.all([
  quietly('types', 'npx', ['tsc', '-p', 'tsconfig.json']),
  quietly('lint', 'npx', ['eslint', '.', '--max-warnings=0']),
  quietly('format', 'npx', ['prettier', '--check', '--log-level=warn', '**/*.{ts,tsx,js,mjs,cjs}']),
]);
const failed = checks.filter((c) => !c.ok);
if (failed.length > 0) {
  for (const c of failed) console.error(`\n✖ ${c.name} failed (exit ${c.code})`);
  summary();
  process.exit(1);
}
let jest;
timed('jest', () => {
  jest = spawnSync('npx', ['jest', '--ci', `--maxWorkers=${process.env.NAP_TEST_WORKERS ?? '2'}`, ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
});
summary();
if (jest.status !== 0) {
  console.error(`\n✖ jest failed (exit ${jest.status ?? jest.signal})`);
  process.exit(jest.status ?? 1);
}
