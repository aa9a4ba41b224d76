import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import { UNPRINTABLE_NAME_CHARACTERS, isPrintableName } from '@nap/contracts';
import { createColors } from 'picocolors';
import { cell, table } from '../src/output/format';
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

  it('keeps the colours nap writes and the layout of lines, never a colour taken from the data without colours', () => {
    expect(terminalText(`${colored.red('failed')}\tcore\u001b[31m\n`, true)).toBe(`${colored.red('failed')}\tcore\u001b[31m\n`);
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
