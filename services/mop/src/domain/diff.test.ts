import { applyPatch, createTwoFilesPatch, diffLines } from 'diff';
import { diffBatch, diffConfigs, splitLines } from './diff';
import type { ConfigDiff } from './diff';

/** A seeded generator, so that a failure names the same texts on every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

/** Lines a configuration is made of: repeated ones (`!`, ` shutdown`), CRLF, one without a line break. */
const VOCABULARY = ['!\n', ' shutdown\n', 'interface Gi0/1\n', 'hostname r1\n', 'vlan 10\n', 'a\r\n', '\n', 'p1\n', 'p2\n', 'p3\n', 'end'];

function randomText(next: () => number): string {
  const count = Math.floor(next() * 30);
  let text = '';
  for (let i = 0; i < count; i++) {
    const line = VOCABULARY[Math.floor(next() * VOCABULARY.length)] as string;
    text += line.endsWith('\n') || i === count - 1 ? line : `${line}\n`;
  }
  return text;
}

function lines(count: number, line: (i: number) => string): string {
  return Array.from({ length: count }, (_, i) => line(i)).join('\n');
}

describe('line diff', () => {
  it('splits lines as jsdiff does: line breaks kept, CRLF one break, no empty last line', () => {
    expect(splitLines('a\nb\r\nc')).toEqual(['a\n', 'b\r\n', 'c']);
    expect(splitLines('a\n\n')).toEqual(['a\n', '\n']);
    expect(splitLines('')).toEqual([]);
  });

  it("answers jsdiff's own diff and unified text, and a shortest edit, on thousands of random configurations", () => {
    const next = random(7);
    for (let i = 0; i < 3_000; i++) {
      const a = randomText(next);
      const b = randomText(next);
      const mine = diffConfigs(a, b) as ConfigDiff;
      const theirs = diffLines(a, b);
      const where = `a=${JSON.stringify(a)} b=${JSON.stringify(b)}`;
      expect({ where, parts: mine.diff.map((p) => [p.type, p.value, p.count]) }).toEqual({
        where,
        parts: theirs.map((c) => [c.added ? 'added' : c.removed ? 'removed' : 'unchanged', c.value, c.count]),
      });
      expect({ where, unified: mine.unified }).toEqual({
        where,
        unified: createTwoFilesPatch('value_a', 'value_b', a, b, undefined, undefined, { context: 3 }),
      });
      expect({ where, applied: applyPatch(a, mine.unified) }).toEqual({ where, applied: b });
    }
  });

  it('diffs two large outputs that share no line at once: every line removed, then every line added', () => {
    // the texts of the report: 20 000 lines each, none in common; jsdiff alone took minutes
    const a = lines(20_000, (i) => `line a ${i}`);
    const b = lines(20_000, (i) => `line b ${i}`);
    const d = diffConfigs(a, b, { timeoutMs: 60_000 }) as ConfigDiff;
    expect(d).toMatchObject({ added: 20_000, removed: 20_000 });
    expect(d.diff.map((p) => [p.type, p.count])).toEqual([
      ['removed', 20_000],
      ['added', 20_000],
    ]);
    expect(applyPatch(a, d.unified)).toBe(b);
  });

  it('diffs a configuration of thousands of lines with changes throughout, as jsdiff does', () => {
    const before = Array.from({ length: 5_000 }, (_, i) => (i % 7 === 0 ? '!' : ` description port ${i % 50}`));
    const after = before.map((line, i) => (i % 97 === 0 ? ` description changed ${i}` : line));
    after.splice(2_500, 0, 'interface Gi0/99', ' shutdown');
    const a = `${before.join('\n')}\n`;
    const b = `${after.join('\n')}\n`;
    const d = diffConfigs(a, b) as ConfigDiff;
    const theirs = diffLines(a, b);
    expect(d.diff.map((p) => p.value)).toEqual(theirs.map((c) => c.value));
    expect(d.added).toBe(theirs.filter((c) => c.added).reduce((n, c) => n + c.count, 0));
    expect(applyPatch(a, d.unified)).toBe(b);
  });

  it('gives up at the time limit on texts that share their lines in another order, and says which of a batch', () => {
    const forward = Array.from({ length: 20_000 }, (_, i) => `line ${i}`);
    const a = forward.join('\n');
    const b = [...forward].reverse().join('\n');
    expect(diffConfigs(a, b, { timeoutMs: 200 })).toBeUndefined();
    expect(
      diffBatch(
        [
          { a: 'x\n', b: 'y\n' },
          { a, b },
        ],
        200,
      ),
    ).toEqual({ ok: false, index: 1 });
    expect(diffBatch([{ a: 'x\n', b: 'y\n', names: { a: 'pre', b: 'post' } }], 200)).toMatchObject({
      ok: true,
      diffs: [{ added: 1, removed: 1, unified: expect.stringContaining('--- pre\n+++ post\n') }],
    });
  });
});
