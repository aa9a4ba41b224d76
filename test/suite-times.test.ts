import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * test/sequencer.cjs: on a clone whose jest has no record of a run (CI's), suites run longest first by
 * test/suite-times.json; a time jest recorded itself wins; a suite in neither runs first.
 */
const ROOT = path.resolve(__dirname, '..');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the sequencer is the CommonJS module jest loads
const Sequencer = require('./sequencer.cjs') as new () => {
  sort(tests: Test[]): Test[];
  cacheResults(tests: Test[], results: unknown): void;
};
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the same JSON the sequencer reads
const { suites } = require('./suite-times.json') as { suites: Record<string, number> };

interface Test {
  path: string;
  duration?: number;
  context: { config: { cache: boolean; cacheDirectory: string; id: string; haste: object }; hasteFS: { getSize(p: string): number } };
}

let cacheDirectory: string;
beforeEach(() => (cacheDirectory = mkdtempSync(path.join(os.tmpdir(), 'nap-sequencer-'))));
afterEach(() => rmSync(cacheDirectory, { recursive: true, force: true }));

function tests(relative: string[]): Test[] {
  const context = { config: { cache: true, cacheDirectory, id: 'sequencer-test', haste: {} }, hasteFS: { getSize: () => 1 } };
  return relative.map((r) => ({ path: path.join(ROOT, r), context }));
}
const order = (sorted: Test[]) => sorted.map((t) => path.relative(ROOT, t.path));

describe('the suite sequencer', () => {
  const measured = Object.entries(suites);

  it('has a time for suites that exist, and only for them', () => {
    expect(measured.length).toBeGreaterThan(100);
    expect(measured.filter(([suite]) => !existsSync(path.join(ROOT, suite))).map(([suite]) => suite)).toEqual([]);
    expect(measured.every(([, ms]) => Number.isInteger(ms) && ms >= 0)).toBe(true);
  });

  it('runs the longest suites first when jest has no record of its own', () => {
    const longest = measured.reduce((a, b) => (b[1] > a[1] ? b : a))[0];
    const shortest = measured.reduce((a, b) => (b[1] < a[1] ? b : a))[0];
    const middle = measured.find(([s]) => s !== longest && s !== shortest)![0];
    expect(order(new Sequencer().sort(tests([shortest, middle, longest])))).toEqual([longest, middle, shortest]);
  });

  it('prefers what jest measured on this machine, and runs a suite timed nowhere first', () => {
    const [longest, second] = measured.slice().sort((a, b) => b[1] - a[1]);
    const sequencer = new Sequencer();
    const known = tests([longest![0], second![0]]);
    // jest's own record now says the second took longer than the longest did in the file
    sequencer.cacheResults(known, {
      testResults: [
        { testFilePath: known[0]!.path, perfStats: { runtime: 1 }, numFailingTests: 0 },
        { testFilePath: known[1]!.path, perfStats: { runtime: longest![1] + 1 }, numFailingTests: 0 },
      ],
    });
    const unknown = 'test/never-timed.test.ts';
    expect(order(new Sequencer().sort(tests([longest![0], unknown, second![0]])))).toEqual([unknown, second![0], longest![0]]);
  });
});
