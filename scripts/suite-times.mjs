#!/usr/bin/env node
// Writes test/suite-times.json, the time of every jest suite, from jest's own record of the last run
// (its perf cache, in its cache directory). test/sequencer.cjs reads the file to run the longest
// suites first on a clone whose jest has no record yet, such as CI's.
//   node scripts/suite-times.mjs [--cache-dir DIR]   after a full run (npm test, or npx jest --ci)
// Take the times from a run on a fresh clone of a 2-core machine, like CI's: its order is the one
// the file should reproduce.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const shown = spawnSync('npx', ['jest', '--showConfig'], { cwd: ROOT, encoding: 'utf8' });
if (shown.status !== 0) throw new Error(`npx jest --showConfig failed: ${shown.stderr}`);
const { configs } = JSON.parse(shown.stdout);
const { id, cacheDirectory } = configs[0];
const at = process.argv.indexOf('--cache-dir');
const dir = at > 0 ? process.argv[at + 1] : cacheDirectory;
if (!dir || !existsSync(dir)) throw new Error(`--cache-dir: no such directory (${dir ?? 'none given'})`);
const file = readdirSync(dir).find((name) => name.startsWith(`perf-cache-${id}-`));
if (!file) throw new Error(`no record of a run in ${dir} (perf-cache-${id}-*): run the suite first`);
/** @type {Record<string, [number, number]>} absolute path: [failed, milliseconds] */
const record = JSON.parse(readFileSync(path.join(dir, file), 'utf8'));
const suites = Object.fromEntries(
  Object.entries(record)
    .map(([suite, [, ms]]) => [path.relative(ROOT, suite), Math.round(ms)])
    // suites of this clone that still exist (jest's record keeps suites deleted or renamed since)
    .filter(([suite]) => !suite.startsWith('..') && existsSync(path.join(ROOT, suite)))
    .sort(([, a], [, b]) => b - a),
);
const note = 'Milliseconds each jest suite took, longest first (scripts/suite-times.mjs; read by test/sequencer.cjs)';
writeFileSync(path.join(ROOT, 'test/suite-times.json'), `${JSON.stringify({ note, suites }, null, 2)}\n`);
console.log(`test/suite-times.json: ${Object.keys(suites).length} suites from ${path.join(dir, file)}`);
