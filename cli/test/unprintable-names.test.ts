import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import { UNPRINTABLE_NAME_CHARACTERS, isPrintableName } from '@nap/contracts';
import { createColors } from 'picocolors';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { cell, table } from '../src/output/format';
import { createStyles } from '../src/output/colors';
import { escapeUnprintable, terminalText } from '../src/output/terminal';
import type { NapHome } from './support/nap';
import { createHome, napInProcess } from './support/nap';

// A workflow stored before names were checked: its name rewrites a terminal (ESC sequences clear
// the screen and set the window title), its description forges a line, and a bidi override
// disguises the rest.
const STORED = {
  _id: 'wf-1',
  name: 'core\u001b[2J\u001b]0;pwned\u0007-check',
  description: 'ok\r\u001b[1Afake line \u202etxt.exe',
  tasks: { workflow_start: {}, workflow_end: {} },
};

let server: http.Server;
let home: NapHome;
const requests: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const url = new URL(req.url ?? '/', 'http://x');
    res.setHeader('content-type', 'application/json');
    if (req.method === 'GET' && url.pathname === '/automation-studio/automations') {
      res.end(JSON.stringify({ items: [STORED], total: 1, start: 0, end: 1 }));
    } else if (url.pathname === '/automation-studio/automations/wf-1') {
      res.end(JSON.stringify(req.method === 'DELETE' ? { status: 'Deleted', data: STORED } : STORED));
    } else {
      res.statusCode = 404;
      res.end(JSON.stringify({ code: 'NOT_FOUND', message: `No route ${req.method} ${url.pathname}`, status: 404 }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  home = createHome();
  home.writeNapConfig(`[profile default]\nhost = 127.0.0.1\nport = ${port}\nuse_tls = false\ntoken = test-token\n`);
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (home !== undefined) rmSync(home.home, { recursive: true, force: true });
});

/** True when `text` holds a character that a terminal acts on or that disguises text (line feeds aside). */
function holdsRaw(text: string): boolean {
  return !isPrintableName(text.replace(/\n/g, ''));
}

describe('nap shows stored names with control characters escaped', () => {
  it('in a table: every ESC, BEL, CR and bidi override shown as an escape, the row kept on one line', async () => {
    const res = await napInProcess(['get', 'workflows'], { env: home.env });
    expect(res.code).toBe(0);
    expect(holdsRaw(res.stdout)).toBe(false);
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('core\\x1b[2J\\x1b]0;pwned\\x07-check');
    expect(lines[1]).toContain('ok\\x0d\\x1b[1Afake line \\u202etxt.exe');
  });

  it('in a plain line (deleted …), and exactly as stored with -o json', async () => {
    const deleted = await napInProcess(['delete', 'workflow', 'wf-1'], { env: home.env });
    expect(deleted.code).toBe(0);
    expect(holdsRaw(deleted.stdout)).toBe(false);
    expect(deleted.stdout).toContain('core\\x1b[2J\\x1b]0;pwned\\x07-check');
    expect(requests).toContain('DELETE /automation-studio/automations/wf-1');

    const json = await napInProcess(['get', 'workflows', '-o', 'json'], { env: home.env });
    expect(json.code).toBe(0);
    expect(json.json<{ name: string; description: string }[]>()[0]).toMatchObject({ name: STORED.name, description: STORED.description });
  });
});

describe('the output layer', () => {
  const plain = createColors(false);
  const colored = createColors(true);

  it('escapes exactly the characters names refuse (the set of the contracts)', () => {
    const refused = new RegExp(`[${UNPRINTABLE_NAME_CHARACTERS}]`, 'u');
    for (let code = 0; code <= 0x3000; code++) {
      const ch = String.fromCodePoint(code);
      expect([code, escapeUnprintable(ch) !== ch]).toEqual([code, refused.test(ch)]);
    }
    expect(escapeUnprintable('Zürich 東京 🚀 netops')).toBe('Zürich 東京 🚀 netops');
  });

  it('keeps the colours nap writes and the layout of lines, never a colour taken from the data', () => {
    const styles = createStyles(true);
    expect(terminalText(`${styles.red('failed')}\tcore\u001b[31m\n`, true)).toBe(`${colored.red('failed')}\tcore\\x1b[31m\n`);
    expect(terminalText(`${styles.red('failed')}\tcore\u001b[31m\n`, false)).toBe('failed\tcore\\x1b[31m\n');
    // a style wrapping platform text keeps the text's escapes, and one nested in another opens the outer again
    expect(terminalText(styles.bold(`a\u001b[2J ${styles.dim('b')} c`), true)).toBe(
      '\u001b[1ma\\x1b[2J \u001b[2mb\u001b[22m\u001b[1m c\u001b[22m',
    );
    // an SGR sequence written as picocolors writes it, not through nap's styles, is the data's
    expect(terminalText(colored.red('x'), true)).toBe('\\x1b[31mx\\x1b[39m');
    expect(terminalText('core\u001b[31m\u001b]0;t\u0007\n', false)).toBe('core\\x1b[31m\\x1b]0;t\\x07\n');
    expect(terminalText('a\u001b[2Jb', true)).toBe('a\\x1b[2Jb');
    // a device's CRLF ends lines; a lone CR would rewrite one
    expect(terminalText('line 1\r\nline 2\r\n', false)).toBe('line 1\nline 2\n');
    expect(terminalText('ok\rfake', false)).toBe('ok\\x0dfake');
  });

  it('cells: control characters of values and of JSON-shown objects escaped, colour applied after', () => {
    expect(cell('a\u0000b\u009bc')).toBe('a\\x00b\\u009bc');
    expect(cell({ name: 'x\u202e' })).toBe('{"name":"x\\u202e"}');
    const text = table([{ name: 'n\u001b[8m' }], [{ header: 'NAME', value: (r: { name: string }) => r.name }], plain);
    expect(text).toBe('NAME\nn\\x1b[8m\n');
  });
});

/**
 * A colour sequence in a name (ESC [ 31 m), a bidi override (U+202E) and a line separator (U+2028),
 * through every kind of output nap writes, on terminals that show colours: each reaches the
 * terminal as its escape, while nap's own colours stay colours.
 */
describe('platform text on a terminal that shows colours', () => {
  const NAME = 'red\u001b[31mname\u202eevil\u2028x';
  const SHOWN = 'red\\x1b[31mname\\u202eevil\\u2028x';
  const DOC = { _id: 'wf-red', name: NAME, description: 'plain', tasks: { workflow_start: {}, workflow_end: {} } };
  const JOB = { _id: 'job-red', name: NAME, description: NAME, status: 'complete', tasks: {}, metrics: { start_time: 0, end_time: 1000 } };
  let red: http.Server;
  let redHome: NapHome;
  const bold = (text: string): string => `\u001b[1m${text}\u001b[22m`;
  /** `text` without the SGR sequences of `codes` (those nap writes). */
  const withoutStyles = (text: string, codes: number[]): string => codes.reduce((t, code) => t.split(`\u001b[${code}m`).join(''), text);

  beforeAll(async () => {
    red = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      res.setHeader('content-type', 'application/json');
      if (req.method === 'GET' && url.pathname === '/automation-studio/automations') {
        res.end(JSON.stringify({ items: [DOC], total: 1, start: 0, end: 1 }));
      } else if (url.pathname === '/automation-studio/automations/wf-red') {
        res.end(JSON.stringify(req.method === 'DELETE' ? { status: 'Deleted', data: DOC } : DOC));
      } else if (url.pathname === '/operations-manager/jobs/job-red') {
        res.end(JSON.stringify({ data: JOB }));
      } else if (url.pathname === '/operations-manager/jobs/job-red/events') {
        res.setHeader('content-type', 'text/event-stream');
        const snapshot = { ...JOB, status: 'running' };
        res.write(`id: 1\nevent: snapshot\ndata: ${JSON.stringify(snapshot)}\n\n`);
        res.end(`id: 2\nevent: jobError\ndata: ${JSON.stringify({ timestamp: 1000, error: [{ task: 't1', message: NAME }] })}\n\n`);
      } else {
        res.statusCode = 409;
        res.end(
          JSON.stringify({
            code: 'CONFLICT',
            message: `${NAME} is in the way`,
            status: 409,
            details: [{ member: 'body.name', message: NAME }],
          }),
        );
      }
    });
    await new Promise<void>((resolve) => red.listen(0, '127.0.0.1', resolve));
    const { port } = red.address() as AddressInfo;
    redHome = createHome();
    redHome.writeNapConfig(`[profile default]\nhost = 127.0.0.1\nport = ${port}\nuse_tls = false\ntoken = test-token\n`);
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => red.close(() => resolve()));
    if (redHome !== undefined) rmSync(redHome.home, { recursive: true, force: true });
  });

  // CI: no spinner on stderr, which says nothing of the platform's
  const onTerminal = (args: string[]) => napInProcess(args, { env: { ...redHome.env, CI: 'true' }, tty: true });

  it('in a table: nap bolds the header, the name shows its escapes', async () => {
    const res = await onTerminal(['get', 'workflows']);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const [head, row, ...rest] = res.stdout.split('\n');
    expect(head!.startsWith(`${bold('NAME')}  `)).toBe(true);
    expect(head).toContain(`  ${bold('DESCRIPTION')}  `);
    expect(row).toMatch(new RegExp(`^${SHOWN.replace(/[\\[\]]/g, '\\$&')} +plain +0 +wf-red$`));
    expect(rest).toEqual(['']);
  });

  it('in a plain line, the colour of the name escaped (the gap this closes)', async () => {
    const res = await onTerminal(['delete', 'workflow', 'wf-red']);
    expect(res).toMatchObject({ code: 0, stdout: `deleted workflow "${SHOWN}" (wf-red)\n`, stderr: '' });
  });

  it('in a document described: nap bolds the keys, the values show their escapes', async () => {
    const res = await onTerminal(['describe', 'workflow', 'wf-red']);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain(`${bold('name')}: "${SHOWN.replace('\\x1b', '\\e')}"\n`);
    expect(holdsRaw(withoutStyles(res.stdout, [1, 22]))).toBe(false);
  });

  it('in an error the platform sent: its message and details escaped', async () => {
    const res = await onTerminal(['api', 'post', '/anything', '-d', '{}']);
    expect(res.code).toBe(1);
    expect(res.stderr).toBe(`nap: POST /anything failed: ${SHOWN} is in the way (409 CONFLICT)\n`);
  });

  it('in the progress of a job followed: nap colours the words and the name, the name keeps its escapes', async () => {
    const res = await onTerminal(['jobs', 'watch', 'job-red']);
    expect(res.stderr).toContain(` job job-red ${bold(SHOWN)} is \u001b[33mrunning\u001b[39m\n`);
    expect(res.stderr).toContain(` \u001b[31mjob ended in error\u001b[39m: t1: ${SHOWN}\n`);
    expect(holdsRaw(withoutStyles(res.stderr, [1, 2, 22, 31, 33, 39]))).toBe(false);
  });

  it("as JSON: on a terminal with JSON's own escapes, the same value; to a pipe byte for byte", async () => {
    const tty = await onTerminal(['get', 'workflow', 'wf-red', '-o', 'json']);
    expect(tty.code).toBe(0);
    expect(tty.stdout).toContain('"name": "red\\u001b[31mname\\u202eevil\\u2028x"');
    expect(holdsRaw(tty.stdout)).toBe(false);
    expect(JSON.parse(tty.stdout)).toEqual(DOC);
    const piped = await napInProcess(['get', 'workflow', 'wf-red', '-o', 'json'], { env: redHome.env });
    expect(piped.stdout).toBe(`${JSON.stringify(DOC, null, 2)}\n`);
  });

  it("as YAML: on a terminal double-quoted with YAML's escapes, the same value; to a pipe as YAML writes it", async () => {
    const tty = await onTerminal(['get', 'workflow', 'wf-red', '-o', 'yaml']);
    expect(tty.code).toBe(0);
    expect(tty.stdout).toContain('name: "red\\e[31mname\\u202eevil\\u2028x"\n');
    expect(holdsRaw(tty.stdout)).toBe(false);
    expect(parseYaml(tty.stdout)).toEqual(DOC);
    const piped = await napInProcess(['get', 'workflow', 'wf-red', '-o', 'yaml'], { env: redHome.env });
    expect(piped.stdout).toBe(stringifyYaml(DOC, { lineWidth: 0, aliasDuplicateObjects: false }));
  });
});
