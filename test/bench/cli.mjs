// Start-up of `nap`: the wall time of `nap --version` beside `node -e 0`, measured in the same run
// and interleaved so that both see the same machine load; the difference is nap's own time (goal:
// under 150 ms). `--smoke` runs a few rounds only. Needs `npm run build` first.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { report, SMOKE } from './report.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'cli/bin/nap.js');
const GOAL_MS = 150;
const smoke = SMOKE;
const rounds = smoke ? 3 : 30;

if (!existsSync(path.join(ROOT, 'cli/dist/nap.js'))) {
  console.error('cli/dist/nap.js is missing: run `npm run build` first');
  process.exit(1);
}

function time(args) {
  const started = process.hrtime.bigint();
  const res = spawnSync(process.execPath, args, { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (res.status !== 0) throw new Error(`node ${args.join(' ')} exited ${res.status}: ${res.stderr}`);
  return ms;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const cases = { 'node -e 0': ['-e', '0'], 'nap --version': [BIN, '--version'], 'nap --help': [BIN, '--help'] };
const samples = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
time(cases['nap --version']); // warm the file cache
for (let i = 0; i < rounds; i += 1) for (const [name, args] of Object.entries(cases)) samples[name].push(time(args));

const base = median(samples['node -e 0']);
console.log(`nap start-up, median of ${rounds} runs (node ${process.version})`);
for (const [name, xs] of Object.entries(samples)) {
  const own = name === 'node -e 0' ? '' : `   own ${(median(xs) - base).toFixed(0).padStart(4)} ms`;
  console.log(`  ${name.padEnd(14)} ${median(xs).toFixed(0).padStart(5)} ms${own}`);
}
const own = median(samples['nap --version']) - base;
console.log(`nap --version own time ${own.toFixed(0)} ms (goal < ${GOAL_MS} ms): ${own < GOAL_MS ? 'ok' : 'OVER'}`);
report({
  name: 'nap --version own start-up time',
  value: own,
  unit: 'ms',
  target: `< ${GOAL_MS}`,
  baseline: { name: 'node -e 0', value: base },
});
report({
  name: 'nap --help own start-up time',
  value: median(samples['nap --help']) - base,
  unit: 'ms',
  baseline: { name: 'node -e 0', value: base },
  better: 'lower',
});
if (!smoke && own >= GOAL_MS) process.exitCode = 1;
