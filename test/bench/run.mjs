#!/usr/bin/env node
// `npm run bench`: runs every benchmark of test/bench (a file that prints `BENCH {...}` lines, by
// hand or through report.mjs; README.md), one after the other so that their timings do not
// overlap, shows each one's own output as it goes, and ends with one table of every figure beside
// its target and its baseline from the same run. Exits 1 when a benchmark failed (a target not met
// is reported, not a failure).
//
//   node test/bench/run.mjs [--smoke] [--jobs N] [--list [--json]] [name ...]
//
// --smoke   every benchmark at its smoke size (proves they all run; the figures mean nothing)
// --jobs N  run N benchmarks at once (only sensible with --smoke)
// --list    print the benchmarks (and, with --json, the files that are neither a benchmark nor used by one)
// name      only these benchmarks (`pages` or `pages.mjs`)
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PLATFORM_NODE_FLAGS } from './platform-flags.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const OWN = new Set(['run.mjs', 'report.mjs']);
/** A file is a benchmark when it prints BENCH lines: through report.mjs, or by hand. */
const PRINTS_BENCH = /from\s+['"]\.\/report\.mjs['"]|['"`]BENCH /;

/** The benchmarks of test/bench, and the files that are neither one nor used by one. */
export function discover() {
  const files = readdirSync(here)
    .filter((f) => f.endsWith('.mjs') && !OWN.has(f))
    .sort();
  const sources = new Map(files.map((f) => [f, readFileSync(path.join(here, f), 'utf8')]));
  const benches = files.filter((f) => PRINTS_BENCH.test(sources.get(f)));
  const used = (f) => files.some((other) => other !== f && sources.get(other).includes(f));
  const orphans = files.filter((f) => !benches.includes(f) && !used(f));
  return { benches, orphans };
}

function parseArgs(argv) {
  const out = { smoke: false, list: false, json: false, jobs: 1, names: [] };
  for (let i = 0; i < argv.length; i += 1) {
    const a = argv[i];
    if (a === '--smoke') out.smoke = true;
    else if (a === '--list') out.list = true;
    else if (a === '--json') out.json = true;
    else if (a === '--jobs') out.jobs = Math.max(1, Number(argv[++i]));
    else out.names.push(a.endsWith('.mjs') ? a : `${a}.mjs`);
  }
  return out;
}

/** Runs one benchmark; answers its exit code, its BENCH lines and how long it took. */
function runBench(file, { smoke, quiet }) {
  return new Promise((resolve) => {
    const started = performance.now();
    // under the platform's Node flags: a benchmark that hosts the platform need not start again under them
    const child = spawn(process.execPath, [...PLATFORM_NODE_FLAGS, path.join(here, file), ...(smoke ? ['--smoke'] : [])], {
      cwd: root,
      env: process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines = [];
    let rest = '';
    let output = '';
    child.stdout.on('data', (chunk) => {
      const text = rest + chunk;
      const parts = text.split('\n');
      rest = parts.pop() ?? '';
      for (const line of parts) {
        if (line.startsWith('BENCH ')) {
          try {
            lines.push(JSON.parse(line.slice('BENCH '.length)));
          } catch {
            lines.push({ invalid: line });
          }
        }
        output += `${line}\n`;
        if (!quiet) process.stdout.write(`${line}\n`);
      }
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
      if (!quiet) process.stderr.write(chunk);
    });
    child.on('close', (code, signal) => {
      if (rest !== '') output += rest;
      resolve({ file, code: code ?? (signal ? 1 : 0), lines, output, seconds: (performance.now() - started) / 1000 });
    });
  });
}

function met(value, target) {
  const m = /^(<=|<|>=|>)\s*(-?[\d.]+(?:e-?\d+)?)$/.exec(target ?? '');
  if (!m || value === null) return '';
  const goal = Number(m[2]);
  const ok = { '<=': value <= goal, '<': value < goal, '>=': value >= goal, '>': value > goal }[m[1]];
  return ok ? 'met' : 'NOT met';
}

function num(value) {
  if (value === null || value === undefined) return '';
  const abs = Math.abs(value);
  const digits = abs >= 1000 ? 0 : abs >= 100 ? 1 : abs >= 1 ? 2 : 3;
  return value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

function table(results) {
  const rows = [];
  for (const r of results) {
    const bench = r.file.replace(/\.mjs$/, '');
    if (r.code !== 0) rows.push([bench, `FAILED (exit ${r.code})`, '', '', '', '', '', '']);
    for (const line of r.lines) {
      if (line.invalid) rows.push([bench, `unreadable line: ${line.invalid.slice(0, 60)}`, '', '', '', '', '', '']);
      else if (line.skipped) rows.push([bench, `skipped: ${line.skipped}`, '', '', '', '', '', '']);
      else {
        const base = line.baseline;
        const ratio = base && base.value ? line.value / base.value : null;
        rows.push([
          bench,
          line.name,
          num(line.value),
          line.unit,
          line.target ?? '',
          met(line.value, line.target),
          base ? `${base.name}: ${num(base.value)}` : '',
          ratio === null ? '' : `${num(ratio)}x`,
        ]);
      }
    }
    if (r.code === 0 && r.lines.length === 0) rows.push([bench, 'printed no BENCH line', '', '', '', '', '', '']);
  }
  const header = ['bench', 'figure', 'value', 'unit', 'target', '', 'baseline (same run)', 'vs baseline'];
  const out = [`| ${header.join(' | ')} |`, `|${header.map((_, i) => ([2, 7].includes(i) ? '---:' : '---')).join('|')}|`];
  for (const row of rows) out.push(`| ${row.map((c) => String(c).replace(/\|/g, '\\|')).join(' | ')} |`);
  return out.join('\n');
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const { benches, orphans } = discover();
  if (args.list) {
    if (args.json) console.log(JSON.stringify({ benches, orphans }));
    else for (const b of benches) console.log(b);
    return 0;
  }
  const unknown = args.names.filter((n) => !benches.includes(n));
  if (unknown.length > 0) {
    console.error(`No benchmark ${unknown.join(', ')}; the benchmarks are ${benches.join(', ')}`);
    return 2;
  }
  const chosen = args.names.length > 0 ? args.names : benches;
  const quiet = args.jobs > 1;
  const results = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(args.jobs, chosen.length) }, async () => {
      while (next < chosen.length) {
        const file = chosen[next];
        next += 1;
        if (!quiet) console.log(`\n──── ${file}${args.smoke ? ' --smoke' : ''} ────`);
        const result = await runBench(file, { smoke: args.smoke, quiet });
        if (quiet) console.log(`${file}: exit ${result.code} in ${result.seconds.toFixed(1)} s`);
        results.push(result);
      }
    }),
  );
  results.sort((a, b) => chosen.indexOf(a.file) - chosen.indexOf(b.file));
  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  console.log(
    `\n${args.smoke ? 'Smoke run (figures mean nothing): ' : ''}${results.length} benchmarks, ${os.cpus().length} cores, node ${process.version}, load ${load}\n`,
  );
  console.log(table(results));
  if (orphans.length > 0)
    console.log(`\nNot benchmarks and used by none (they print no BENCH line; see test/bench/README.md): ${orphans.join(', ')}`);
  const failed = results.filter((r) => r.code !== 0);
  if (failed.length > 0) {
    for (const f of failed) if (quiet) console.error(`\n──── ${f.file} failed (exit ${f.code}) ────\n${f.output.slice(-4000)}`);
    console.error(`\n${failed.length} benchmark(s) failed: ${failed.map((f) => f.file).join(', ')}`);
    return 1;
  }
  return 0;
}

process.exitCode = await main();
