import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildProgram } from '../src/program';
import { REFERENCE_BEGIN, REFERENCE_END, renderReference } from '../src/reference';

/** docs/cli.md's command reference is generated from the command definitions; this keeps it in step. */
const DOC = path.resolve(__dirname, '../../docs/cli.md');

function generated(): string {
  const sink = { write: () => true } as unknown as NodeJS.WriteStream;
  const program = buildProgram({ stdout: sink, stderr: sink, env: {} }, async () => undefined);
  return renderReference(program);
}

describe('docs/cli.md', () => {
  it('holds the command reference generated from the command definitions (UPDATE_DOCS=1 rewrites it)', () => {
    const text = readFileSync(DOC, 'utf8');
    const start = text.indexOf(REFERENCE_BEGIN);
    const end = text.indexOf(REFERENCE_END);
    expect(start).toBeGreaterThan(-1);
    expect(end).toBeGreaterThan(start);
    const current = text.slice(start, end + REFERENCE_END.length + 1);
    const expected = generated();
    if (process.env.UPDATE_DOCS === '1' && process.env.CI !== 'true' && current !== expected) {
      writeFileSync(DOC, text.slice(0, start) + expected + text.slice(end + REFERENCE_END.length + 1));
      return;
    }
    expect(current).toBe(expected);
  });

  it('documents every command of the tree and every exit code', () => {
    const reference = generated();
    for (const heading of [
      'nap get <resource> [name]',
      'nap run workflow <name>',
      'nap jobs retry <id> <task>',
      'nap jobs archive',
      'nap jobs archive-download <id>',
      'nap jobs archive-delete <id>',
      'nap tasks finish <job> <task>',
      'nap disable <resource> <names...>',
      'nap enable <resource> <names...>',
      'nap completion <shell>',
    ]) {
      expect(reference).toContain(`### \`${heading}\``);
    }
    expect(reference).toMatch(/^\| 6 \| the platform is unreachable/m);
  });
});
