import { createColors } from 'picocolors';
import { columnLimits, table } from '../src/output/format';
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
});
