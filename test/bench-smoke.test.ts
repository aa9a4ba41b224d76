/**
 * Benchmarks that cannot rot: every benchmark of test/bench runs at its `--smoke` size (a tiny run
 * that proves it still works against today's built code; no timing is asserted) and must exit 0
 * having printed its `BENCH` lines. Two run at once. Needs the build (`npm test` builds first).
 * A benchmark that skipped for a missing prerequisite warns here, and fails under CI=true (it
 * exits 1 itself there).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { startScriptNodeFlags } from '@nap/testing';

const ROOT = path.resolve(__dirname, '..');
const RUN = path.join(ROOT, 'test/bench/run.mjs');
const AT_ONCE = 2;
/** A smoke run that takes longer than this is stuck, not slow. */
const SMOKE_TIMEOUT_MS = 120_000;
/**
 * The Node flags of `npm start`, which run.mjs gives every benchmark too: one that hosts the
 * platform runs itself again under them when it lacks them (platform-flags.mjs), a second process.
 */
const PLATFORM_NODE_FLAGS = startScriptNodeFlags(path.join(ROOT, 'package.json'));

interface Listing {
  benches: string[];
  orphans: string[];
}

interface Outcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  lines: Record<string, unknown>[];
  seconds: number;
}

const listed = spawnSync(process.execPath, [RUN, '--list', '--json'], { encoding: 'utf8' });
if (listed.status !== 0) throw new Error(`node test/bench/run.mjs --list failed: ${listed.stderr}`);
const { benches, orphans } = JSON.parse(listed.stdout) as Listing;

function smoke(file: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [...PLATFORM_NODE_FLAGS, path.join(ROOT, 'test/bench', file), '--smoke'], {
      cwd: ROOT,
      env: process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), SMOKE_TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const lines = output
        .split('\n')
        .filter((l) => l.startsWith('BENCH '))
        .map((l) => JSON.parse(l.slice('BENCH '.length)) as Record<string, unknown>);
      resolve({ code, signal, output, lines, seconds: (Date.now() - started) / 1000 });
    });
  });
}

const outcomes = new Map<string, Outcome>();

beforeAll(async () => {
  for (const built of ['deploy/standalone/dist/index.js', 'services/workflow/dist/index.js', 'cli/dist/nap.js']) {
    if (!existsSync(path.join(ROOT, built)))
      throw new Error(`${built} is missing: the benchmarks run the built code; run \`npm run build\` first`);
  }
  let next = 0;
  await Promise.all(
    Array.from({ length: AT_ONCE }, async () => {
      while (next < benches.length) {
        const file = benches[next] as string;
        next += 1;
        outcomes.set(file, await smoke(file));
      }
    }),
  );
}, 10 * 60_000);

describe('test/bench', () => {
  it('has benchmarks, and every other file there is used by one', () => {
    expect(benches.length).toBeGreaterThanOrEqual(10);
    expect({ 'prints no BENCH line and is used by no benchmark (see test/bench/README.md)': orphans }).toEqual({
      'prints no BENCH line and is used by no benchmark (see test/bench/README.md)': [],
    });
  });

  it.each(benches)('%s runs at smoke size', (file) => {
    const outcome = outcomes.get(file) as Outcome;
    const tail = outcome.output.slice(-3000);
    expect({ file, code: outcome.code, signal: outcome.signal, tail: outcome.code === 0 ? '' : tail }).toEqual({
      file,
      code: 0,
      signal: null,
      tail: '',
    });
    const skipped = outcome.lines.filter((l) => typeof l.skipped === 'string');
    if (skipped.length > 0) {
      console.warn(`${'!'.repeat(100)}\n${file} did NOT run: ${String(skipped[0]?.skipped)}\n${'!'.repeat(100)}`);
      return;
    }
    expect(outcome.lines.length).toBeGreaterThan(0);
    for (const line of outcome.lines) {
      expect({ file, line }).toEqual({
        file,
        line: expect.objectContaining({ name: expect.any(String), unit: expect.any(String), smoke: true }) as unknown,
      });
      expect(line.value === null || typeof line.value === 'number').toBe(true);
    }
  });
});
