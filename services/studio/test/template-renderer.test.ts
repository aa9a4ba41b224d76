import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SECRET_MASK, isAppError } from '@nap/contracts';
import { createLogger } from '@nap/telemetry';
import { createTemplateRenderer, loadTemplateRendererConfig, templatingProblem } from '../src';
import type { TemplateRenderer, TemplateRendererConfig } from '../src';
import { PYTHON, describeWithPython } from './python';

function config(extra: Partial<TemplateRendererConfig> = {}): TemplateRendererConfig {
  return { ...loadTemplateRendererConfig({ NAP_PYTHON: PYTHON }), workers: 1, ...extra };
}

/** The AppError a promise rejects with (its code, status, message and details). */
async function failure(promise: Promise<unknown>): Promise<{ code: string; status: number; message: string; details?: unknown }> {
  try {
    await promise;
  } catch (err) {
    if (isAppError(err))
      return { code: err.code, status: err.status, message: err.message, ...(err.details === undefined ? {} : { details: err.details }) };
    throw err;
  }
  throw new Error('Expected the call to fail, it succeeded');
}

const render = (
  r: TemplateRenderer,
  template: string,
  context: Record<string, unknown> = {},
  profile: 'templateBuilder' | 'device' = 'templateBuilder',
) => r.renderJinja({ template, context, profile, subject: 'Template "t"' });

/** Two nested loops of 100,000 (the sandbox's largest range) with no output: runs for hours. */
const RUNAWAY = '{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}done';

describe('renderer settings', () => {
  it('reads NAP_PYTHON and NAP_TEMPLATE_*, and lists every bad value', () => {
    expect(
      loadTemplateRendererConfig({ NAP_PYTHON: '/opt/py/bin/python3', NAP_TEMPLATE_WORKERS: '3', NAP_TEMPLATE_TIMEOUT_MS: '250' }),
    ).toMatchObject({
      python: '/opt/py/bin/python3',
      workers: 3,
      timeoutMs: 250,
      maxOutputBytes: 524_288,
      memoryBytes: 512 * 1_048_576,
    });
    expect(() => loadTemplateRendererConfig({ NAP_TEMPLATE_WORKERS: '0', NAP_TEMPLATE_TIMEOUT_MS: 'soon' })).toThrow(
      /NAP_TEMPLATE_WORKERS must be a whole number from 1 to 64, got "0"[\s\S]*NAP_TEMPLATE_TIMEOUT_MS/,
    );
  });
});

describe('a renderer whose Python is missing', () => {
  it('answers 503 saying what to install when the interpreter is missing', async () => {
    const none = createTemplateRenderer(config({ python: '/nonexistent/bin/python3' }));
    try {
      const err = await failure(render(none, 'x'));
      expect(err).toMatchObject({ code: 'TEMPLATE_RENDERER_UNAVAILABLE', status: 503 });
      expect(err.message).toContain('Python was not found at "/nonexistent/bin/python3"');
      expect(err.message).toContain('apt-get install -y python3-jinja2 python3-textfsm');
      expect(err.message).toContain('NAP_PYTHON');
    } finally {
      await none.close();
    }
  });
});

describe('the start-up check of templating', () => {
  it('names a missing interpreter and the one command that turns templates on', async () => {
    const problem = await templatingProblem('/nonexistent/bin/python3');
    expect(problem).toContain('Python was not found at "/nonexistent/bin/python3"');
    expect(problem).toMatch(/turn templates on with `(sudo )?apt-get install -y python3-jinja2 python3-textfsm` \(no restart needed\)/);
  });
});

describeWithPython('the Python template worker pool', () => {
  it('renders with Python semantics and answers many requests at once in order of their ids', async () => {
    const r = createTemplateRenderer(config({ workers: 2 }));
    try {
      expect(await render(r, '{{ d }} {{ l }} {{ n }} {{ b }}\n', { d: { a: null, b: true }, l: [1, 'x'], n: null, b: false })).toBe(
        "{'a': None, 'b': True} [1, 'x'] None False",
      );
      const outs = await Promise.all(Array.from({ length: 50 }, (_, i) => render(r, '{{ i * 2 }}', { i })));
      expect(outs).toEqual(Array.from({ length: 50 }, (_, i) => String(i * 2)));
      expect(r.pool.versions).toMatchObject({ jinja2: '3.1.2', textfsm: expect.any(String) as string });
      expect(await r.echo({ deep: [1, { two: 'é✓' }] })).toEqual({ deep: [1, { two: 'é✓' }] });
    } finally {
      await r.close();
    }
  });

  it('stops a runaway loop at the time limit, names the limit, and serves the next render from a fresh worker', async () => {
    const r = createTemplateRenderer(config({ timeoutMs: 400 }));
    try {
      expect(await render(r, 'warm')).toBe('warm');
      const started = Date.now();
      const err = await failure(render(r, RUNAWAY));
      expect(err).toMatchObject({ code: 'TEMPLATE_TIMEOUT', status: 422, details: { limitMs: 400 } });
      expect(err.message).toBe(
        'Template "t" ran longer than the limit of 400 ms (NAP_TEMPLATE_TIMEOUT_MS) and was stopped; look for a loop that does not end',
      );
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(r.pool.restarts).toBe(1);
      expect(await render(r, 'after {{ x }}', { x: 1 })).toBe('after 1');
    } finally {
      await r.close();
    }
  });

  it('drops a request still waiting for a worker when its caller stops waiting, and never runs it', async () => {
    const r = createTemplateRenderer(config({ timeoutMs: 1_500 }));
    try {
      expect(await render(r, 'warm')).toBe('warm');
      // the one worker holds a runaway loop until the time limit; the requests behind it wait
      const runaway = failure(render(r, RUNAWAY));
      const started = Date.now();
      const abandoned = failure(
        r.renderJinja({ template: RUNAWAY, context: {}, profile: 'templateBuilder', subject: 'Template "gone"', deadline: started + 200 }),
      );
      const waiting = r.renderJinja({
        template: 'next {{ n }}',
        context: { n: 1 },
        profile: 'templateBuilder',
        subject: 'Template "next"',
        deadline: started + 60_000,
      });
      expect(await runaway).toMatchObject({ code: 'TEMPLATE_TIMEOUT' });
      const dropped = await abandoned;
      expect(dropped).toMatchObject({ code: 'TIMEOUT', status: 504 });
      expect(dropped.message).toContain('Template "gone" waited for a free template worker');
      // the abandoned loop was not run: no second worker was killed at the time limit for it
      expect(await waiting).toBe('next 1');
      expect(r.pool.restarts).toBe(1);
    } finally {
      await r.close();
    }
  });

  it("shares the workers out between callers: one caller's runaway loops hold another's render back by one at most", async () => {
    const r = createTemplateRenderer(config({ timeoutMs: 600 }));
    try {
      expect(await render(r, 'warm')).toBe('warm');
      const ended: string[] = [];
      const as = (owner: string, template: string, label: string) =>
        r
          .renderJinja({ template, context: {}, profile: 'templateBuilder', subject: `Template "${label}"`, owner })
          .then(
            (text) => text,
            (err: unknown) => (isAppError(err) ? err.code : String(err)),
          )
          .finally(() => ended.push(label));
      // one caller sends three loops that never end, one after another; another caller's render comes after them
      const loops = [as('mallory', RUNAWAY, 'loop 1'), as('mallory', RUNAWAY, 'loop 2'), as('mallory', RUNAWAY, 'loop 3')];
      const fair = as('ana', 'hello {{ 1 + 1 }}', 'ana');
      expect(await fair).toBe('hello 2');
      expect(await Promise.all(loops)).toEqual(['TEMPLATE_TIMEOUT', 'TEMPLATE_TIMEOUT', 'TEMPLATE_TIMEOUT']);
      // the other caller's render ran as soon as the first loop gave up its worker, before the other loops
      expect(ended).toEqual(['loop 1', 'ana', 'loop 2', 'loop 3']);
    } finally {
      await r.close();
    }
  });

  it('answers 503 for the request a dying worker held, restarts it, and renders again', async () => {
    const r = createTemplateRenderer(config({ timeoutMs: 20_000 }));
    try {
      expect(await render(r, 'warm')).toBe('warm');
      // the pool hands a request to a free worker as it is made: the worker holds it from here on
      const held = failure(render(r, RUNAWAY));
      expect(r.pool.killWorkers('SIGKILL')).toBe(1);
      const err = await held;
      expect(err).toMatchObject({ code: 'TEMPLATE_RENDERER_UNAVAILABLE', status: 503 });
      expect(err.message).toMatch(
        /^The template worker stopped \(SIGKILL\) while working on this request; it is being restarted, try again$/,
      );
      expect(await render(r, 'back {{ 1 + 1 }}')).toBe('back 2');
      expect(r.pool.restarts).toBe(1);
    } finally {
      await r.close();
    }
  });

  it('refuses probes of Python internals with 400, whichever way they reach for them', async () => {
    const r = createTemplateRenderer(config());
    try {
      for (const probe of [
        "{{ ''.__class__.__mro__ }}",
        "{{ ''.__class__ }}",
        '{{ x.__class__.__base__.__subclasses__() }}',
        "{{ x | attr('__class__') }}",
        "{{ '{0.__class__}'.format(x) }}",
        '{{ lipsum.__globals__ }}',
        '{{ cycler.__init__.__globals__.os }}',
        '{{ self._TemplateReference__context }}',
        '{{ undefined_thing.__class__ }}',
      ]) {
        const err = await failure(render(r, probe, { x: 1 }));
        expect({ probe, code: err.code, status: err.status }).toEqual({ probe, code: 'TEMPLATE_SANDBOX_VIOLATION', status: 400 });
        expect(err.message).toMatch(
          /^Template "t" was refused by the sandbox at line 1: access to attribute '_\w+' of '\w+' object is unsafe; templates cannot reach Python internals$/,
        );
      }
      expect(await render(r, 'still {{ "fine" }}')).toBe('still fine');
      expect(r.pool.restarts).toBe(0);
    } finally {
      await r.close();
    }
  });

  it('caps the output, before a huge string is built and while a loop writes', async () => {
    const r = createTemplateRenderer(config({ maxOutputBytes: 10_000 }));
    try {
      for (const template of ["{{ 'x' * 100000000 }}", '{% for i in range(100000) %}line {{ i }}\n{% endfor %}']) {
        const err = await failure(render(r, template));
        expect(err).toMatchObject({ code: 'TEMPLATE_OUTPUT_TOO_LARGE', status: 422, details: { limitBytes: 10_000 } });
        expect(err.message).toBe('Template "t" produced more than the limit of 10000 bytes (NAP_TEMPLATE_MAX_OUTPUT_BYTES)');
      }
      expect(await render(r, "{{ 'x' * 10 }}")).toBe('xxxxxxxxxx');
    } finally {
      await r.close();
    }
  });

  it('names the line of syntax and render errors, and the variables a strict device render lacks', async () => {
    const r = createTemplateRenderer(config());
    try {
      expect(await failure(render(r, 'a\nb {% if %}'))).toMatchObject({
        code: 'TEMPLATE_RENDER_FAILED',
        message: 'Template "t" has a syntax error at line 2: Expected an expression, got \'end of statement block\'',
        details: { kind: 'syntax', line: 2 },
      });
      expect(await failure(render(r, 'a\n\n{{ 1 / z }}', { z: 0 }))).toMatchObject({
        code: 'TEMPLATE_RENDER_FAILED',
        message: 'Template "t" failed at line 3: ZeroDivisionError: division by zero',
        details: { kind: 'render', line: 3 },
      });
      // TemplateBuilder: Python's lenient Undefined prints nothing
      expect(await render(r, '[{{ nothing }}]')).toBe('[]');
      const device = '{% if banner %}banner {{ banner }}\n{% endif %}hostname {{ hostname }}\nntp {{ ntp.server }}\n';
      expect(await failure(render(r, device, {}, 'device'))).toMatchObject({
        code: 'TEMPLATE_RENDER_FAILED',
        details: { kind: 'undefined', line: 2, missing: ['hostname'] },
      });
      expect(await render(r, device, { hostname: 'r1', ntp: { server: '10.0.0.1' } }, 'device')).toBe('hostname r1\nntp 10.0.0.1\n');
    } finally {
      await r.close();
    }
  });

  it('masks the secret variables of a render in its errors, in the form Python quotes them', async () => {
    const r = createTemplateRenderer(config());
    // a backslash and a quote: Python's repr doubles the one, JSON escapes both
    const password = 'Zq7-Kx9"Vw\\3pLm';
    const context = { hostname: 'core-1', device: { username: 'netops', password }, enable_secret: 'Tr0ub4dor&3' };
    const inClear = (text: string, secret: string) =>
      Array.from({ length: secret.length - 3 }, (_, i) => secret.slice(i, i + 4)).filter((part) => text.includes(part));
    try {
      const device = await failure(render(r, 'hostname {{ hostname }}\n{{ {}[device.password].x }}', context));
      expect(device).toMatchObject({
        code: 'TEMPLATE_RENDER_FAILED',
        message: `Template "t" failed at line 2: 'dict object' has no attribute '${SECRET_MASK}'`,
        details: { kind: 'undefined', line: 2 },
      });
      const enable = await failure(render(r, '{{ [1] | map(enable_secret) | list }}', context, 'device'));
      expect(enable.message).toBe(`Template "t" failed at line 1: TemplateRuntimeError: No filter named '${SECRET_MASK}'.`);
      for (const err of [device, enable])
        expect(inClear(JSON.stringify(err), password).concat(inClear(JSON.stringify(err), 'Tr0ub4dor&3'))).toEqual([]);
      // a value that is no secret is still named
      expect((await failure(render(r, '{{ {}[hostname].x }}', context))).message).toContain("'core-1'");
      // the rendered text is what was asked for: a configuration holds the password it was given
      expect(await render(r, 'enable secret {{ enable_secret }}', context)).toBe('enable secret Tr0ub4dor&3');
      // a parse is given no variables, but key material in the device output it quotes is masked
      const parse = await failure(
        r.parseTextFsm({
          template: 'Value X (\\S+)\n\nStart\n  ^-----BEGIN -> Error\n  ^${X} -> Record\n',
          text: 'a\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n',
          subject: 'Template "t"',
        }),
      );
      expect(parse.message).toBe(`Template "t" stopped on the text: State Error raised. Rule Line: 4. Input Line: ${SECRET_MASK}`);
    } finally {
      await r.close();
    }
  });

  it("masks a render's secrets in what its worker writes, on stdout and stderr, before the end shown is cut", async () => {
    // a worker that writes a request's password to stderr (2,000 characters end there inside the
    // first copy), then answers the next request with a line that is not JSON and holds its password
    const dir = mkdtempSync(path.join(os.tmpdir(), 'nap-python-'));
    writeFileSync(
      path.join(dir, 'worker.py'),
      [
        'import json, sys',
        'print(json.dumps({"ready": True, "python": "3", "jinja2": "3", "textfsm": "1"}), flush=True)',
        'for line in sys.stdin:',
        '    req = json.loads(line)',
        '    ctx = req["context"]',
        '    pw = ctx["password"] if "password" in ctx else ctx["device"]["password"]',
        '    if req["template"] == "stderr":',
        '        end = " login refused for " + pw + "\\n"',
        '        sys.stderr.write("A" * 5000 + pw + "B" * (2000 - 6 - len(end)) + end)',
        '        sys.stderr.flush()',
        '        print(json.dumps({"id": req["id"], "ok": True, "value": "written"}), flush=True)',
        '    else:',
        '        print("Traceback: no answer for " + pw, flush=True)',
        '',
      ].join('\n'),
    );
    const fake = path.join(dir, 'python3');
    writeFileSync(fake, `#!/bin/sh\nexec ${PYTHON} ${path.join(dir, 'worker.py')}\n`);
    chmodSync(fake, 0o755);
    const logged: string[] = [];
    const logger = createLogger({ name: 'studio-test', level: 'warn', destination: { write: (line: string) => void logged.push(line) } });
    const r = createTemplateRenderer(config({ python: fake }), logger);
    try {
      expect(await render(r, 'stderr', { password: 'Hq4-Wp8xNv2Ks' })).toBe('written');
      const err = await failure(render(r, 'stdout', { device: { password: 'Yt6-Rm3zLc9Jf' } }));
      expect(err).toMatchObject({
        code: 'TEMPLATE_RENDERER_UNAVAILABLE',
        message: `The template worker wrote a line that is not JSON: Traceback: no answer for ${SECRET_MASK}; it is being restarted, try again`,
      });
      const killed = logged.find((line) => line.includes('Template worker killed')) ?? '';
      // the end of stderr, masked before it was cut: the copy the cut would have fallen in is masked whole too
      expect(JSON.parse(killed)).toMatchObject({ stderr: expect.stringMatching(/^A+\*{8}B+ login refused for \*{8}\n$/) });
      for (const secret of ['Hq4-Wp8xNv2Ks', 'Yt6-Rm3zLc9Jf'])
        for (let i = 0; i + 4 <= secret.length; i++)
          expect({ part: secret.slice(i, i + 4), in: killed.includes(secret.slice(i, i + 4)) }).toEqual({
            part: secret.slice(i, i + 4),
            in: false,
          });
    } finally {
      await r.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('answers 503 naming the packages when the Python it runs lacks the modules', async () => {
    // a Python that does not see its site packages (-S): jinja2 cannot be imported
    const dir = mkdtempSync(path.join(os.tmpdir(), 'nap-python-'));
    const fake = path.join(dir, 'python3');
    writeFileSync(fake, `#!/bin/sh\nexec ${PYTHON} -S "$@"\n`);
    chmodSync(fake, 0o755);
    const r = createTemplateRenderer(config({ python: fake }));
    try {
      const err = await failure(render(r, 'x'));
      expect(err).toMatchObject({ code: 'TEMPLATE_RENDERER_UNAVAILABLE', status: 503 });
      expect(err.message).toContain('lacks the module "jinja2"');
      expect(err.message).toContain('apt-get install -y python3-jinja2 python3-textfsm');
      // what the studio service says at start for the same Python
      expect(await templatingProblem(fake)).toContain(`Python at "${fake}" lacks the module "jinja2"`);
      expect(await templatingProblem(PYTHON)).toBeUndefined();
    } finally {
      await r.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
