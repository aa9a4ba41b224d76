import { hasCode } from '@nap/contracts';
import { createDiffPool } from '../src/engine/diff-pool';

/** 20 000 lines both texts have, in opposite orders: the search for the shortest edit would take minutes. */
function reversedLists(): { a: string; b: string } {
  const forward = Array.from({ length: 20_000 }, (_, i) => `line ${i}`);
  return { a: forward.join('\n'), b: [...forward].reverse().join('\n') };
}

/** Resolves at the next turn of the event loop: only when nothing holds it. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('the diff worker pool', () => {
  it('keeps the event loop turning while a diff runs to its limit, refuses it naming the texts, and serves the next one', async () => {
    const pool = createDiffPool({ size: 1, timeoutMs: 1_000 });
    try {
      // the worker has started and diffed once
      expect(await pool.diff([{ a: 'a\n', b: 'b\n' }])).toMatchObject([{ added: 1, removed: 1 }]);
      const order: string[] = [];
      const big = pool.diff([{ ...reversedLists(), label: 'the two lists' }]).then(
        () => order.push('big diffed'),
        (err: unknown) => {
          order.push('big refused');
          return err;
        },
      );
      let turns = 0;
      while (order.length === 0) {
        await nextTurn();
        turns += 1;
      }
      // the loop turned many times while the diff ran in its thread
      expect(turns).toBeGreaterThan(1);
      expect(order).toEqual(['big refused']);
      const err = await big;
      expect(hasCode(err, 'MOP_DIFF_LIMIT_EXCEEDED')).toBe(true);
      expect(err).toMatchObject({
        status: 422,
        message:
          'Could not diff the two lists within 1000 ms: they differ in too many places (20000 and 20000 lines); compare smaller parts of them',
      });
      expect(await pool.diff([{ a: 'x\ny\n', b: 'x\nz\n' }])).toMatchObject([{ added: 1, removed: 1 }]);
    } finally {
      await pool.close();
    }
  });

  it('diffs on its other worker while one runs to its limit', async () => {
    const pool = createDiffPool({ size: 2, timeoutMs: 3_000 });
    try {
      const order: string[] = [];
      const big = pool.diff([reversedLists()]).then(
        () => order.push('big diffed'),
        () => order.push('big refused'),
      );
      const small = pool.diff([{ a: 'a\n', b: 'b\n' }]).then(() => order.push('small diffed'));
      await Promise.all([big, small]);
      expect(order).toEqual(['small diffed', 'big refused']);
    } finally {
      await pool.close();
    }
  });

  it('diffs the large texts of the report at once: 20 000 lines each, none in common', async () => {
    const pool = createDiffPool({ timeoutMs: 30_000 });
    try {
      const a = Array.from({ length: 20_000 }, (_, i) => `line a ${i}`).join('\n');
      const b = Array.from({ length: 20_000 }, (_, i) => `line b ${i}`).join('\n');
      const [d] = await pool.diff([{ a, b }]);
      expect(d).toMatchObject({ added: 20_000, removed: 20_000 });
    } finally {
      await pool.close();
    }
  });

  it('stops a diff that needs more memory than allowed and replaces its worker', async () => {
    const pool = createDiffPool({ timeoutMs: 30_000, maxMemoryMb: 16 });
    try {
      const a = Array.from({ length: 400_000 }, (_, i) => `interface Gi0/${i} description a`).join('\n');
      const b = Array.from({ length: 400_000 }, (_, i) => `interface Gi0/${i} description b`).join('\n');
      const err: unknown = await pool.diff([{ a, b, label: 'the two inventories' }]).catch((e: unknown) => e);
      expect(hasCode(err, 'MOP_DIFF_LIMIT_EXCEEDED')).toBe(true);
      expect(err).toMatchObject({ message: expect.stringContaining('the two inventories needed more than the 16 MiB') });
      expect(pool.replaced).toBe(1);
      expect(await pool.diff([{ a: 'x\n', b: 'x\n' }])).toMatchObject([{ added: 0, removed: 0 }]);
    } finally {
      await pool.close();
    }
  });

  it('drops a batch whose caller stopped waiting before a worker was free, and refuses diffs once closed', async () => {
    const pool = createDiffPool({ size: 1, timeoutMs: 1_000 });
    const busy = pool.diff([reversedLists()]).catch((e: unknown) => e);
    const late = pool.diff([{ a: 'a\n', b: 'b\n' }], Date.now() - 1).catch((e: unknown) => e);
    expect(hasCode(await late, 'TIMEOUT')).toBe(true);
    expect(hasCode(await busy, 'MOP_DIFF_LIMIT_EXCEEDED')).toBe(true);
    await pool.close();
    expect(hasCode(await pool.diff([{ a: 'a', b: 'b' }]).catch((e: unknown) => e), 'SERVICE_UNAVAILABLE')).toBe(true);
  });
});
