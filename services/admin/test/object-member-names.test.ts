import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createBusClient } from '@nap/bus';
import type { BusClient } from '@nap/bus';
import { SYSTEM_CALLER, isAppError } from '@nap/contracts';
import { eventually } from '@nap/testing';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';

/**
 * Names users choose that Object.prototype also has (`constructor`, `toString`, `__proto__`) in what
 * adapters and integrations send: brokers, query and header members of a task, the JSON pointers
 * credentials are written at, and the parameters of an integration's operation. Each is an ordinary
 * name (found when given, absent when not, never dropped), and none leads into Object.prototype.
 */

let platform: TestPlatform;
let token: string;
let client: BusClient;
let server: http.Server;
let port: number;
/** What the outside system received: the raw request line's URL, the raw headers (as sent, in pairs) and the body. */
const received: { url: string; rawHeaders: string[]; body: string }[] = [];

beforeAll(async () => {
  platform = await startTestPlatform();
  token = await platform.login();
  client = createBusClient({ bus: platform.bus });
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ url: req.url ?? '', rawHeaders: req.rawHeaders, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok": true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
}, 60_000);

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await platform?.stop();
});

afterEach(() => {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

/** An object whose own members are `json`'s, `__proto__` included (an object literal would set the prototype instead). */
function own(json: string): Record<string, unknown> {
  return JSON.parse(json) as Record<string, unknown>;
}

/** The own member `key` of `value` (`__proto__` included), or undefined. */
function member(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? Object.getOwnPropertyDescriptor(value, key)?.value : undefined;
}

/** The raw headers of a received request as [name, value] pairs, letter case as sent. */
function headerPairs(rawHeaders: string[]): [string, string][] {
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) pairs.push([rawHeaders[i] as string, rawHeaders[i + 1] as string]);
  return pairs;
}

describe('adapters', () => {
  it('brokers named constructor, __proto__ or toString are mapped as any other', async () => {
    const res = await platform.http('POST', '/adapters', {
      token,
      body: {
        properties: {
          name: 'proto-adapter',
          type: 'Adapter',
          model: '@nap/adapter-http',
          properties: {
            id: 'proto-adapter',
            type: 'HTTP',
            brokers: ['constructor', '__proto__', 'toString', 'ticketing'],
            groups: [],
            properties: {
              server: { protocol: 'http', host: '127.0.0.1', port, base_path: '/api' },
              authentication: { type: 'basic', username: 'netops', password: 'adapter-password-7734' },
              healthcheck: { path: '/health', intervalSeconds: 0.1 },
            },
          },
        },
      },
    });
    expect(res.status).toBe(200);
    const mapping = await platform.http('GET', '/adapters/brokers/mapping', { token });
    expect(mapping.status).toBe(200);
    const map = mapping.body as Record<string, unknown>;
    expect(Object.keys(map).sort()).toEqual(['__proto__', 'constructor', 'ticketing', 'toString']);
    for (const broker of ['__proto__', 'constructor', 'ticketing', 'toString']) expect(member(map, broker)).toEqual(['proto-adapter']);

    expect((await platform.http('PUT', '/adapters/proto-adapter/start', { token })).status).toBe(200);
    await eventually(
      'proto-adapter running',
      async () => ((await platform.http('GET', '/health/adapters/proto-adapter', { token })).body as { state: string }).state === 'RUNNING',
      { timeoutMs: 10_000 },
    );
  });

  it('a generic request sends query and header members named __proto__ or constructor as given', async () => {
    const run = await client.call(
      'admin.runTask',
      {
        body: {
          app: 'proto-adapter',
          method: 'genericAdapterRequest',
          incoming: {
            uriPath: '/items',
            restMethod: 'GET',
            queryData: own('{"__proto__": "q", "constructor": "c"}'),
            addlHeaders: own('{"__proto__": "h", "constructor": "hc"}'),
          },
        },
      },
      { caller: SYSTEM_CALLER, timeoutMs: 10_000 },
    );
    expect(run.body).toMatchObject({ result: { status: 200, body: { ok: true } } });
    const last = received.filter((r) => r.url.startsWith('/api/items')).at(-1);
    expect(last?.url).toBe('/api/items?__proto__=q&constructor=c');
    const headers = headerPairs(last?.rawHeaders ?? []);
    expect(headers).toEqual(
      expect.arrayContaining([
        ['__proto__', 'h'],
        ['constructor', 'hc'],
      ]),
    );
  });

  it('credentials are written only into the body: a pointer through __proto__ or constructor is refused naming it unless the body has that member', async () => {
    for (const pointer of ['/__proto__/polluted', '/constructor/polluted', '/toString/polluted']) {
      const err = await client
        .call(
          'admin.callAdapter',
          {
            body: {
              adapter: 'proto-adapter',
              method: 'POST',
              path: '/login',
              body: { params: {} },
              credentialsAt: { user: pointer, password: '/params/passwd' },
            },
          },
          { caller: SYSTEM_CALLER, timeoutMs: 10_000 },
        )
        .catch((e: unknown) => e);
      expect({ pointer, code: isAppError(err) ? err.code : err, details: isAppError(err) ? err.details : undefined }).toEqual({
        pointer,
        code: 'VALIDATION_FAILED',
        details: [{ member: 'body.credentialsAt.user', message: 'its parent is not an object of the body' }],
      });
    }
    // the body's own __proto__ member is an object of the body like any other
    const answer = await client.call(
      'admin.callAdapter',
      {
        body: {
          adapter: 'proto-adapter',
          method: 'POST',
          path: '/login',
          body: own('{"__proto__": {"note": "kept"}, "params": {}}'),
          credentialsAt: { user: '/__proto__/user', password: '/params/__proto__' },
        },
      },
      { caller: SYSTEM_CALLER, timeoutMs: 10_000 },
    );
    expect(answer.body).toMatchObject({ status: 200 });
    const sent = JSON.parse(received.filter((r) => r.url === '/api/login').at(-1)?.body ?? '{}') as unknown;
    expect(member(sent, '__proto__')).toEqual({ note: 'kept', user: 'netops' });
    expect(member(member(sent, 'params'), '__proto__')).toBe('adapter-password-7734');
  });
});

describe('integrations', () => {
  it('an operation parameter named constructor or toString has no value unless the task gives one', async () => {
    const model = {
      openapi: '3.0.0',
      info: { title: 'Proto Names', version: '1' },
      servers: [{ url: `http://127.0.0.1:${port}/api` }],
      paths: {
        '/things': {
          get: {
            operationId: 'getThings',
            parameters: [
              { name: 'constructor', in: 'query', schema: { type: 'string' } },
              { name: 'toString', in: 'header', schema: { type: 'string' } },
            ],
            responses: { '200': { description: 'the things' } },
          },
        },
      },
    };
    const created = await platform.http('POST', '/integration-models', { token, body: { model } });
    expect({ status: created.status, body: created.body }).toMatchObject({ status: 200 });
    const integration = await platform.http('POST', '/integrations', {
      token,
      body: { properties: { name: 'ProtoNames', model: 'Proto Names:1', properties: {} } },
    });
    expect({ status: integration.status, body: integration.body }).toMatchObject({ status: 200 });

    const call = (incoming: Record<string, unknown>) =>
      client.call(
        'admin.runTask',
        { body: { app: 'ProtoNames', method: 'getThings', incoming } },
        { caller: SYSTEM_CALLER, timeoutMs: 10_000 },
      );
    expect((await call({})).body).toMatchObject({ result: { status: 200 } });
    const bare = received.filter((r) => r.url.startsWith('/api/things')).at(-1);
    expect(bare?.url).toBe('/api/things');
    expect(headerPairs(bare?.rawHeaders ?? []).filter(([name]) => name.toLowerCase() === 'tostring')).toEqual([]);

    expect((await call({ constructor: 'c', toString: 't' })).body).toMatchObject({ result: { status: 200 } });
    const given = received.filter((r) => r.url.startsWith('/api/things')).at(-1);
    expect(given?.url).toBe('/api/things?constructor=c');
    expect(headerPairs(given?.rawHeaders ?? []).filter(([name]) => name.toLowerCase() === 'tostring')).toEqual([['tostring', 't']]);
  });
});
