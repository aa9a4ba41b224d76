import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createRegexPool } from '../src';

const BUILT = path.resolve(__dirname, '../dist/index.js');

describe('the regular expression worker pool', () => {
  it('stops a catastrophic pattern at the limit, answers the other jobs of the batch and keeps serving', async () => {
    const pool = createRegexPool({ size: 2, jobTimeoutMs: 300 });
    try {
      const input = `${'a'.repeat(40)}!`;
      const started = Date.now();
      const out = await pool.run(
        [input, 'interface Gi0/1 is up'],
        [
          { pattern: 'a+!', flags: '', input: 0, mode: 'test' },
          { pattern: '(a+)+$', flags: '', input: 0, mode: 'test' },
          { pattern: 'Gi(\\S+)', flags: '', input: 1, mode: 'capture' },
          { pattern: '(', flags: '', input: 1, mode: 'test' },
        ],
      );
      expect(out).toEqual([
        { ok: true, value: true },
        { ok: false, timedOut: true, error: expect.stringContaining('300 ms') },
        { ok: true, value: '0/1' },
        { ok: false, error: expect.stringContaining('Invalid regular expression') },
      ]);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(pool.replaced).toBe(1);
      const [after] = await pool.run(['x y x'], [{ pattern: 'x', flags: '', input: 0, mode: 'all' }]);
      expect(after).toEqual({ ok: true, value: ['x', 'x'] });
    } finally {
      await pool.close();
    }
  });

  it('does not start the patterns of a batch whose deadline passed: each says it was not run', async () => {
    const pool = createRegexPool({ size: 1, jobTimeoutMs: 300 });
    try {
      await pool.run(['warm'], [{ pattern: 'w', flags: '', input: 0, mode: 'test' }]);
      const catastrophic = { pattern: '(a+)+$', flags: '', input: 0, mode: 'test' } as const;
      // the first pattern holds the worker to the limit; the deadline passes meanwhile
      const out = await pool.run([`${'a'.repeat(40)}!`], [catastrophic, catastrophic, catastrophic, catastrophic], Date.now() + 150);
      expect(out[0]).toMatchObject({ ok: false, timedOut: true });
      for (const rest of out.slice(1))
        expect(rest).toEqual({ ok: false, error: "the pattern was not run: the request's deadline passed while it waited for a worker" });
      expect(pool.replaced).toBe(1);
      // without a deadline every one runs to the limit
      const all = await pool.run([`${'a'.repeat(40)}!`], [catastrophic, catastrophic]);
      expect(all).toEqual([expect.objectContaining({ timedOut: true }), expect.objectContaining({ timedOut: true })]);
    } finally {
      await pool.close();
    }
  });

  it('runs many batches at once across its workers while one is stuck', async () => {
    const pool = createRegexPool({ size: 2, jobTimeoutMs: 500 });
    try {
      const stuck = pool.run([`${'a'.repeat(40)}!`], [{ pattern: '(a+)+$', flags: '', input: 0, mode: 'test' }]);
      const quick = await Promise.all(
        Array.from({ length: 50 }, (_, i) => pool.run([`line ${i}`], [{ pattern: 'line ([0-9]+)', flags: '', input: 0, mode: 'capture' }])),
      );
      expect(quick.map((o) => o[0])).toEqual(Array.from({ length: 50 }, (_, i) => ({ ok: true, value: String(i) })));
      expect((await stuck)[0]).toMatchObject({ ok: false, timedOut: true });
    } finally {
      await pool.close();
    }
  });

  it('answers pending jobs when closed and refuses new ones', async () => {
    const pool = createRegexPool({ size: 1, jobTimeoutMs: 5_000 });
    // a first answer says the worker is up: the next job goes to it at once and is running when the pool closes
    await pool.run(['x'], [{ pattern: 'x', flags: '', input: 0, mode: 'test' }]);
    const pending = pool.run([`${'a'.repeat(40)}!`], [{ pattern: '(a+)+$', flags: '', input: 0, mode: 'test' }]);
    await pool.close();
    expect((await pending)[0]).toMatchObject({ ok: false, error: expect.stringContaining('stopping') });
    await expect(pool.run(['x'], [{ pattern: 'x', flags: '', input: 0, mode: 'test' }])).rejects.toThrow('closed');
  });

  it('keeps a process alive while it has work and lets it exit once idle, unclosed', async () => {
    if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run \`npm run build\` first`);
    // a script whose only pending work is the pool's: a top-level await that never settles exits 13
    const script = [
      `import { createRequire } from 'node:module';`,
      `const { createRegexPool } = createRequire(${JSON.stringify(__filename)})(${JSON.stringify(BUILT)});`,
      `const pool = createRegexPool({ size: 2 });`,
      `const out = await pool.run(['line 7'], [{ pattern: 'line ([0-9]+)', flags: '', input: 0, mode: 'capture' }]);`,
      `console.log(JSON.stringify(out));`,
    ].join('\n');
    const { code, stdout } = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = execFile(process.execPath, ['--input-type=module', '-e', script], { timeout: 20_000 }, (err, out) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout: out }),
      );
      child.stdin?.end();
    });
    expect({ code, stdout: stdout.trim() }).toEqual({ code: 0, stdout: JSON.stringify([{ ok: true, value: '7' }]) });
  });
});
