import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MAX_RESPONSE_BYTES } from '../src/clients/rest-call';
import { BUILTINS } from '../src/engine/builtins';
import type { BuiltinResult } from '../src/domain/builtins';
import type { ReferenceScope } from '../src/domain/references';

const signal = new AbortController().signal;

async function run(
  name: string,
  incoming: Record<string, unknown>,
  scope: ReferenceScope = { variables: {}, tasks: {} },
): Promise<BuiltinResult> {
  return (BUILTINS[name] as (typeof BUILTINS)[string])({ incoming, scope, startedAt: Date.now(), signal });
}

describe('built-in tasks beyond the fixtures', () => {
  it('pop takes the last item of a job array', async () => {
    expect(await run('pop', { job_variable: 'stack' }, { variables: { stack: [1, 2, 3] }, tasks: {} })).toEqual({
      finishState: 'success',
      outgoing: { popped_item: 3, job_variable_value: [1, 2] },
      setVariables: { stack: [1, 2] },
    });
    await expect(run('pop', { job_variable: 'nope' })).rejects.toThrow('"nope"');
  });

  it('deepmerge merges objects deeply, either as a list or as keyed values', async () => {
    expect((await run('deepmerge', { data_to_merge: [{ a: { b: 1, c: [1] } }, { a: { d: 2, c: [2] } }] })).outgoing).toEqual({
      merged_object: { a: { b: 1, d: 2, c: [2] } },
    });
    const scope: ReferenceScope = { variables: { base: { x: { y: 1 } } }, tasks: {} };
    const keyed = await run(
      'deepmerge',
      {
        data_to_merge: [
          { key: 'cfg', value: { task: 'job', variable: 'base' } },
          { key: 'cfg', value: { task: 'static', variable: { x: { z: 2 } } } },
        ],
      },
      scope,
    );
    expect(keyed.outgoing).toEqual({ merged_object: { cfg: { x: { y: 1, z: 2 } } } });
  });

  it('evaluation refuses an unknown operator with a clear message', async () => {
    const incoming = {
      all_true_flag: false,
      evaluation_groups: [
        {
          all_true_flag: false,
          evaluations: [{ operand_1: { task: 'static', variable: 1 }, operator: '~=', operand_2: { task: 'static', variable: 1 } }],
        },
      ],
    };
    await expect(run('evaluation', incoming)).rejects.toThrow('"~="');
  });

  it.each([
    ['contains', 'abcdef', 'cd', true],
    ['!contains', ['a', 'b'], 'c', true],
    ['<', 2, '10', true],
    ['<=', 'a', 'b', true],
    ['>', '3.5', 3, true],
    ['>=', 3, 3, true],
    ['==', { a: [1] }, { a: [1] }, true],
    ['!=', '5', 5, false],
  ])('evaluation %s', async (operator, a, b, expected) => {
    const res = await run('evaluation', {
      all_true_flag: true,
      evaluation_groups: [
        {
          all_true_flag: true,
          evaluations: [{ operand_1: { task: 'static', variable: a }, operator, operand_2: { task: 'static', variable: b } }],
        },
      ],
    });
    // the doc: true when the condition is met, undefined otherwise
    expect(res.outgoing.return_value).toBe(expected ? true : undefined);
    expect(res.finishState).toBe(expected ? 'success' : 'failure');
  });

  it('makeData converts to its output type and names a missing placeholder', async () => {
    expect((await run('makeData', { input: '{"port": <!p!>}', outputType: 'json', variables: { p: 22 } })).outgoing).toEqual({
      output: { port: 22 },
    });
    await expect(run('makeData', { input: '<!q!>', outputType: 'string', variables: {} })).rejects.toThrow('<!q!>');
  });

  it('setObjectKey refuses prototype paths', async () => {
    await expect(run('setObjectKey', { obj: {}, path: ['__proto__', 'polluted'], value: 1 })).rejects.toThrow('__proto__');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('restCall calls an HTTP endpoint and reports its answer', async () => {
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        res.writeHead(req.url === '/missing' ? 404 : 201, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            method: req.method,
            auth: req.headers.authorization ?? null,
            body: body ? (JSON.parse(body) as unknown) : null,
          }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const ok = await run('restCall', { uri: `${base}/things`, verb: 'post', body: { a: 1 }, user: 'u', password: 'p' });
      expect(ok).toMatchObject({
        finishState: 'success',
        outgoing: {
          response: { status: 201, body: { method: 'POST', auth: `Basic ${Buffer.from('u:p').toString('base64')}`, body: { a: 1 } } },
        },
      });
      expect((await run('restCall', { uri: `${base}/missing` })).finishState).toBe('failure');
      await expect(run('restCall', { uri: 'file:///etc/passwd' })).rejects.toThrow('file:');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('restCall reaches no link-local or unspecified address, even behind a redirect, and reads no answer past its limit', async () => {
    const seen: string[] = [];
    const server = http.createServer((req, res) => {
      seen.push(`${req.method ?? ''} ${req.url ?? ''} ${req.headers.authorization ?? '-'}`);
      if (req.url === '/to-metadata') res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      else if (req.url === '/to-things') res.writeHead(303, { location: '/things' }).end();
      else if (req.url === '/big') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const mib = Buffer.alloc(1024 * 1024, 'x');
        for (let i = 0; i <= MAX_RESPONSE_BYTES / mib.length; i++) res.write(mib);
        res.end();
      } else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      for (const uri of [
        'http://169.254.169.254/latest/meta-data/',
        'http://2852039166/', // 169.254.169.254 as one number
        'http://[::ffff:169.254.169.254]/',
        'http://[fd00:ec2::254]/',
        'http://0.0.0.0:1/',
        `${base}/to-metadata`,
      ])
        await expect(run('restCall', { uri })).rejects.toThrow('link-local and unspecified addresses are refused');
      // a redirect within bounds is followed as fetch follows it: 303 turns a POST into a GET
      const hop = await run('restCall', { uri: `${base}/to-things`, verb: 'POST', body: { a: 1 }, user: 'u', password: 'p' });
      expect(hop).toMatchObject({ finishState: 'success', outgoing: { response: { status: 200, body: { ok: true } } } });
      await expect(run('restCall', { uri: `${base}/big` })).rejects.toThrow(`more than ${MAX_RESPONSE_BYTES} bytes`);
      expect(seen.slice(0, 3)).toEqual([
        `GET /to-metadata -`,
        `POST /to-things Basic ${Buffer.from('u:p').toString('base64')}`,
        `GET /things Basic ${Buffer.from('u:p').toString('base64')}`,
      ]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
