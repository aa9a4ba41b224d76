#!/usr/bin/env node
// `npm test`: the whole suite. Installs the prerequisites that can be installed, builds (esbuild,
// seconds), then runs jest across the workspace (suites in parallel) and, beside it at a lower
// priority, checks types, lint and formatting. Says how long each step took.
import { spawn } from 'node:child_process';
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

/** Jest across the workspace, its output as it comes. */
function jest() {
  return new Promise((resolve) => {
    const t = Date.now();
    const args = ['jest', '--ci', `--maxWorkers=${process.env.NAP_TEST_WORKERS ?? '2'}`, ...process.argv.slice(2)];
    const child = spawn('npx', args, { stdio: 'inherit' });
    child.on('close', (code, signal) => {
      took.push(['jest', Date.now() - t]);
      resolve({ name: 'jest', ok: code === 0, code: code ?? signal });
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
// Jest and the three checks run at once. The checks run at a lower priority (nice 10): on 2 cores
// jest's suites keep the CPU they need (their timers and browsers stay on time) and the checks take
// what jest leaves while its suites wait on processes, sockets and browsers; one after the other,
// lint alone kept a core idle for a minute. A failure of any of them fails the run, once all ended.
const steps = await Promise.all([
  quietly('types', 'nice', ['-n', '10', 'npx', 'tsc', '-p', 'tsconfig.json']),
  quietly('lint', 'nice', ['-n', '10', 'npx', 'eslint', '.', '--max-warnings=0']),
  quietly('format', 'nice', ['-n', '10', 'npx', 'prettier', '--check', '--log-level=warn', '**/*.{ts,tsx,js,mjs,cjs}']),
  jest(),
]);
summary();
const failed = steps.filter((s) => !s.ok);
for (const s of failed) console.error(`\n✖ ${s.name} failed (exit ${s.code})`);
if (failed.length > 0) process.exit(1);
