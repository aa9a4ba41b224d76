import { createColors } from 'picocolors';
import { columnLimits, displayWidth, table } from '../src/output/format';
import type { Column } from '../src/output/format';

const plain = createColors(false);

interface Row {
  id: string;
  name: string;
  description: string;
}

const COLUMNS: Column<Row>[] = [
  { header: 'ID', value: (r) => r.id },
  { header: 'NAME', value: (r) => r.name },
  { header: 'DESCRIPTION', value: (r) => r.description, prose: true },
];

const LONG = 'Checks every interface of the device before and after the change, and says which ones moved. '.repeat(3);
const ROWS: Row[] = [
  { id: '5f2c9a7e1b3d4c6a8e0f1a2b', name: 'Interface check', description: LONG },
  { id: '6a0d8b2f4c1e3a5b7d9f0c1e', name: 'Port turn-up', description: 'Turns a port up' },
];

describe('tables', () => {
  it('keep every value whole without a terminal width (a pipe or a file)', () => {
    const text = table(ROWS, COLUMNS, plain);
    expect(text).toContain(LONG.trim());
    expect(text.split('\n')[1]!.length).toBeGreaterThan(300);
  });

  it('cut a long description to the terminal, ending it with …, and never an id or a name', () => {
    const text = table(ROWS, COLUMNS, plain, 100);
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(100);
    expect(lines[1]).toMatch(/^5f2c9a7e1b3d4c6a8e0f1a2b {2}Interface check {2}Checks every interface .*…$/);
    expect(lines[2]).toMatch(/Turns a port up$/);
  });

  it('leave a table that fits as it is', () => {
    expect(table(ROWS.slice(1), COLUMNS, plain, 200)).toBe(table(ROWS.slice(1), COLUMNS, plain));
  });

  it('never cut below twelve characters: a terminal too narrow for the ids folds the line instead', () => {
    const limits = columnLimits(
      COLUMNS.map((c) => ({ header: c.header, prose: c.prose === true })),
      ROWS.map((r) => [r.id, r.name, r.description]),
      30,
    );
    expect(limits).toEqual([Infinity, Infinity, 12]);
    const line = table(ROWS, COLUMNS, plain, 30).split('\n')[1]!;
    expect(line).toMatch(/ {2}Checks ever…$/);
  });

  it('measure a cell in terminal columns: two for CJK and emoji, none for a combining mark', () => {
    expect(displayWidth('Port turn-up')).toBe(12);
    expect(displayWidth('日本語のワークフロー')).toBe(20);
    expect(displayWidth('turn-up 🚀')).toBe(10);
    expect(displayWidth('🇯🇵 👍🏽 👨‍👩‍👧')).toBe(8);
    expect(displayWidth('Übe\u0301rprüfung')).toBe(11);
    expect(displayWidth('Ｆｕｌｌ')).toBe(8);
  });

  it('fit the terminal with CJK and emoji descriptions, cut on whole characters', () => {
    const wide: Row[] = [
      {
        id: '5f2c9a7e1b3d4c6a8e0f1a2b',
        name: 'Kernrouter prüfen',
        description: '説明: これは非常に長い説明文で、端末の幅を超えるはずです。'.repeat(2),
      },
      { id: '6a0d8b2f4c1e3a5b7d9f0c1e', name: 'emoji 🚀🔥', description: '👍'.repeat(40) },
    ];
    const text = table(wide, COLUMNS, plain, 80);
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    // every line within the 80 columns, where counting code points let each one take about 110
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(80);
    expect(lines[1]).toMatch(/ {2}説明: これは.*…$/);
    expect(lines[2]).toMatch(/ {2}(👍)+…$/);
    // the names are whole, and the descriptions start at one column in both rows
    expect(lines[1]).toContain('Kernrouter prüfen');
    const at = (line: string, part: string) => displayWidth(line.slice(0, line.indexOf(part)));
    expect(at(lines[1]!, '説明')).toBe(at(lines[2]!, '👍'));
  });
});
