import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createBusClient } from '@nap/bus';
import { SECRET_MASK, SYSTEM_CALLER, eventPattern, isAppError } from '@nap/contracts';
import { eventually } from '@nap/testing';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { startOpenApiPeer } from '@nap/lab';
import type { OpenApiPeer } from '@nap/lab';
import { peerAdapter } from '../../../test/support/adapters';

/**
 * Adapters against the lab peer: records with the original nesting, a lifecycle driven by a real
 * periodic connection check, secrets never answered, export/import, events, and the bus-only call
 * other services (orch-proxy) make through an adapter without seeing its credentials.
 */

let platform: TestPlatform;
let token: string;
let peer: OpenApiPeer;
const events: { subject: string; payload: Record<string, unknown> }[] = [];

beforeAll(async () => {
  platform = await startTestPlatform();
  token = await platform.login();
  peer = await startOpenApiPeer();
  await platform.bus.consumeEvents(
    eventPattern('admin', 'adapter'),
    (e) => {
      events.push({ subject: e.subject, payload: JSON.parse(Buffer.from(e.data).toString('utf8')) as Record<string, unknown> });
    },
    { deliver: 'new' },
  );
});

afterAll(async () => {
  await peer?.close();
  await platform?.stop();
});

function httpAdapter(name: string, password: string): Record<string, unknown> {
  // four failures in a row before DEAD: one check slowed by a busy machine is not the peer gone;
  // a check waits at most its interval, so half a second lets a loaded machine answer in time
  return peerAdapter(name, peer, { password, healthcheck: { intervalSeconds: 0.5, failuresBeforeDead: 4 } });
}

type Health = { name: string; state: string; connection: { state: string }; uptime: number; lastError: { message: string } | null };

async function health(name: string): Promise<Health> {
  const res = await platform.http('GET', `/health/adapters/${name}`, { token });
  expect(res.status).toBe(200);
  return res.body as Health;
}

/** `nap_adapters` by state, as a Prometheus would scrape it. */
async function adapterGauge(): Promise<Record<string, number>> {
  const res = await platform.http('GET', '/exporter_metrics', { token });
  const counts: Record<string, number> = {};
  for (const match of String(res.body).matchAll(/^nap_adapters\{state="(\w+)"[^}]*\} (\d+)$/gm))
    counts[match[1] as string] = Number(match[2]);
  return counts;
}

async function until(name: string, check: (h: Health) => boolean, what: string): Promise<Health> {
  return eventually(
    `adapter ${name} becoming ${what}`,
    async () => {
      const h = await health(name);
      // a timeout shows the health as it was last read
      if (!check(h)) throw new Error(`last read: ${JSON.stringify(h)}`);
      return h;
    },
    { timeoutMs: 10_000 },
  );
}

describe('HTTP adapter lifecycle against the lab peer', () => {
  it('creates an adapter with the original nesting, never answering its secret', async () => {
    const res = await platform.http('POST', '/adapters', { token, body: { properties: httpAdapter('snow-adapter', peer.password) } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      metadata: { isActive: false, state: 'STOPPED', connection: 'UNKNOWN' },
      data: {
        name: 'snow-adapter',
        type: 'Adapter',
        isEncrypted: true,
        properties: {
          id: 'snow-adapter',
          type: 'HTTP',
          brokers: ['ticketing'],
          properties: { authentication: { type: 'basic', username: peer.user, password: '********' } },
        },
      },
    });
    for (const route of ['/adapters', '/adapters/snow-adapter', '/adapters/snow-adapter/export']) {
      const got = await platform.http('GET', route, { token });
      expect(got.status).toBe(200);
      expect(JSON.stringify(got.body)).not.toContain(peer.password);
    }
    const stored = await platform.stores.get('admin')?.collection('adapters').findOne({ _id: 'snow-adapter' });
    expect(JSON.stringify(stored)).not.toContain(peer.password);
    expect((await platform.http('POST', '/adapters', { token, body: { properties: httpAdapter('snow-adapter', 'x') } })).status).toBe(409);
    expect((await platform.http('GET', '/adapter-models/types', { token })).body).toEqual({ adapterModels: ['HTTP', 'NSO'], total: 2 });
    expect((await platform.http('GET', '/adapters/brokers/mapping', { token })).body).toEqual({ ticketing: ['snow-adapter'] });
    expect((await platform.http('GET', '/schema/adapters/snow-adapter', { token })).body).toMatchObject({
      type: 'object',
      required: ['server'],
      properties: { healthcheck: { type: 'object' } },
    });
    const bad = await platform.http('POST', '/adapters', {
      token,
      body: { properties: { ...httpAdapter('bad', 'x'), properties: { type: 'HTTP', properties: { server: { host: '' } } } } },
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('body.properties.properties.properties.server.host');
    // the message names each member once
    const slow = httpAdapter('slow', 'x') as { properties: { properties: { healthcheck: Record<string, unknown> } } };
    slow.properties.properties.healthcheck = { intervalSeconds: 7200 };
    const tooSlow = await platform.http('POST', '/adapters', { token, body: { properties: slow } });
    expect(tooSlow.status).toBe(400);
    const member = 'body.properties.properties.properties.healthcheck.intervalSeconds';
    expect(tooSlow.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: `Invalid HTTP adapter settings: ${member} must be <= 3600`,
      details: [{ member }],
    });
  });

  it('goes RUNNING and ONLINE, OFFLINE then DEAD when the peer stops, and RUNNING after restart once it is back', async () => {
    const start = await platform.http('PUT', '/adapters/snow-adapter/start', { token });
    expect(start.status).toBe(200);
    expect(start.body).toEqual({ name: 'snow-adapter', state: 'STARTING' });
    const running = await until('snow-adapter', (h) => h.state === 'RUNNING' && h.connection.state === 'ONLINE', 'RUNNING and ONLINE');
    expect(running.lastError).toBeNull();
    expect(await adapterGauge()).toEqual({ STOPPED: 0, STARTING: 0, RUNNING: 1, STOPPING: 0, DEAD: 0 });
    expect(
      peer.received.some(
        (r) =>
          r.path === '/stats.do' && r.headers.authorization === `Basic ${Buffer.from(`${peer.user}:${peer.password}`).toString('base64')}`,
      ),
    ).toBe(true);

    await peer.stop();
    await until('snow-adapter', (h) => h.connection.state === 'OFFLINE', 'OFFLINE');
    const dead = await until('snow-adapter', (h) => h.state === 'DEAD', 'DEAD');
    expect(dead).toMatchObject({
      connection: { state: 'OFFLINE' },
      uptime: 0,
      lastError: { message: expect.stringContaining('could not be reached') },
    });
    const list = await platform.http('GET', '/health/adapters', { token });
    expect(list.body).toMatchObject({ total: 1, results: [{ name: 'snow-adapter', state: 'DEAD' }] });
    // what the alert on dead adapters reads: the state people see, not the stored wish that it runs
    expect(await adapterGauge()).toMatchObject({ RUNNING: 0, DEAD: 1 });

    await peer.restart();
    const restart = await platform.http('PUT', '/adapters/snow-adapter/restart', { token });
    expect(restart.body).toEqual({ name: 'snow-adapter', state: 'STARTING' });
    await until('snow-adapter', (h) => h.state === 'RUNNING' && h.connection.state === 'ONLINE', 'RUNNING again');
    const states = events.filter((e) => e.payload.reason === 'state').map((e) => e.payload.state);
    expect(states).toEqual(expect.arrayContaining(['STARTING', 'RUNNING', 'DEAD']));
    expect(events.every((e) => e.subject.startsWith('nap.evt.admin.adapter.snow-adapter.adapterChanged'))).toBe(true);
  });

  it('lets other services call through it over the bus, credentials added by admin', async () => {
    const client = createBusClient({ bus: platform.bus });
    peer.tables.set('incident', new Map([['abc', { sys_id: 'abc', number: 'INC001' }]]));
    const answer = await client.call(
      'admin.callAdapter',
      { body: { adapter: 'snow-adapter', method: 'GET', path: '/table/incident/abc', query: { sysparm_fields: 'number' } } },
      { caller: SYSTEM_CALLER, timeoutMs: 10_000 },
    );
    expect(answer.body).toMatchObject({
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: { result: { number: 'INC001' } },
    });
    const last = peer.received.filter((r) => r.path.startsWith('/api/now/table/')).at(-1);
    expect(last).toMatchObject({ method: 'GET', path: '/api/now/table/incident/abc', query: 'sysparm_fields=number' });
    expect(last?.headers.authorization).toMatch(/^Basic /);
    // a status other than 2xx is answered as it is: the caller maps it
    const missing = await client.call(
      'admin.callAdapter',
      { body: { adapter: 'snow-adapter', method: 'GET', path: '/table/incident/nope' } },
      { caller: SYSTEM_CALLER, timeoutMs: 10_000 },
    );
    expect(missing.body).toMatchObject({ status: 404 });
    // a workflow task addressed to the adapter by name uses the generic request of the original adapters
    const run = await client.call(
      'admin.runTask',
      {
        body: {
          app: 'snow-adapter',
          method: 'genericAdapterRequestNoBasePath',
          incoming: { uriPath: '/api/now/table/incident', restMethod: 'GET', queryData: { sysparm_limit: '1' } },
        },
      },
      { caller: SYSTEM_CALLER, timeoutMs: 10_000 },
    );
    expect(run.body).toMatchObject({ result: { status: 200, body: { result: [{ sys_id: 'abc' }] } } });
  });

  it('refuses calls while not RUNNING, and a task to it fails clearly instead of hanging', async () => {
    const stop = await platform.http('PUT', '/adapters/snow-adapter/stop', { token });
    expect(stop.body).toEqual({ name: 'snow-adapter', state: 'STOPPING' });
    // the audit trail says what the stop changed
    const requestId = encodeURIComponent(stop.headers.get('x-request-id') ?? '');
    expect((await platform.http('GET', `/audit?equals[requestId]=${requestId}`, { token })).body).toMatchObject({
      results: [
        {
          target: { kind: 'adapter', id: 'snow-adapter', name: 'snow-adapter' },
          changes: [{ member: 'state', before: 'RUNNING', after: 'STOPPED' }],
        },
      ],
    });
    await until('snow-adapter', (h) => h.state === 'STOPPED', 'STOPPED');
    const client = createBusClient({ bus: platform.bus });
    const err = await client
      .call(
        'admin.callAdapter',
        { body: { adapter: 'snow-adapter', method: 'GET', path: '/table/incident' } },
        { caller: SYSTEM_CALLER, timeoutMs: 10_000 },
      )
      .catch((e: unknown) => e);
    expect(isAppError(err) && err.code).toBe('ADAPTER_NOT_RUNNING');
    const task = await client
      .call(
        'admin.runTask',
        { body: { app: 'snow-adapter', method: 'genericAdapterRequest', incoming: { uriPath: '/table/incident' } } },
        { caller: SYSTEM_CALLER, timeoutMs: 10_000 },
      )
      .catch((e: unknown) => e);
    expect(isAppError(task) && task.message).toMatch(/Adapter "snow-adapter" is STOPPED, not RUNNING/);
  });

  it('exports and imports round-trip (secrets filled in again), and a deleted adapter cannot start', async () => {
    const exported = (await platform.http('GET', '/adapters/snow-adapter/export', { token })).body as Record<string, unknown>;
    expect(JSON.stringify(exported)).toContain('"password":"********"');
    expect((await platform.http('DELETE', '/adapters/snow-adapter', { token })).status).toBe(200);
    expect((await platform.http('GET', '/adapters/snow-adapter', { token })).status).toBe(404);
    expect(await health('snow-adapter')).toMatchObject({ state: 'DELETED' });
    const start = await platform.http('PUT', '/adapters/snow-adapter/start', { token });
    expect(start.status).toBe(409);
    expect(start.body).toMatchObject({ code: 'ADAPTER_STATE_CONFLICT' });
    // an export carries no secret: importing it as it is names what to fill in
    const masked = await platform.http('POST', '/adapters/import', { token, body: { properties: exported } });
    expect(masked.status).toBe(400);
    expect(masked.body).toMatchObject({ details: [{ member: 'body.properties.properties.properties.authentication.password' }] });
    const filled = JSON.parse(
      JSON.stringify(exported).replace('"password":"********"', `"password":${JSON.stringify(peer.password)}`),
    ) as Record<string, unknown>;
    const imported = await platform.http('POST', '/adapters/import', { token, body: { properties: filled } });
    expect(imported.status).toBe(200);
    expect((await platform.http('GET', '/adapters/snow-adapter/export', { token })).body).toEqual(exported);
    const changelog = await platform.http('GET', '/adapters/snow-adapter/changelogs', { token });
    expect(changelog.body).toMatchObject({ total: 1, results: [{ version: '1', changes: 'imported by admin' }] });
    // a properties update keeps the sealed secret when it is sent masked, and the adapter works with it
    const props = (exported.properties as { properties: Record<string, unknown> }).properties;
    const updated = await platform.http('PUT', '/adapters/snow-adapter/properties', {
      token,
      body: { properties: { ...props, timeoutMs: 5000 } },
    });
    expect(updated.status).toBe(200);
    expect((await platform.http('PUT', '/adapters/snow-adapter/start', { token })).status).toBe(200);
    await until('snow-adapter', (h) => h.state === 'RUNNING' && h.connection.state === 'ONLINE', 'RUNNING with the kept secret');
    const level = await platform.http('PUT', '/adapters/snow-adapter/loglevel', {
      token,
      body: { properties: { level: 'debug', transport: 'console' } },
    });
    expect(level.body).toEqual({ console_level: 'debug' });
    const unknownLevel = await platform.http('PUT', '/adapters/snow-adapter/loglevel', {
      token,
      body: { properties: { level: 'verbose' } },
    });
    expect(unknownLevel.status).toBe(400);
    expect(unknownLevel.body).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('level') });
    expect((await platform.http('DELETE', '/adapters/snow-adapter', { token })).status).toBe(200);
    expect(events.filter((e) => e.payload.reason !== 'state').map((e) => e.payload.reason)).toEqual([
      'created',
      'deleted',
      'created',
      'updated',
      'deleted',
    ]);
  });

  it('keeps an NSO adapter as the original NSO adapter does, checking /restconf with its credentials', async () => {
    const nso = {
      name: 'nso-lab',
      type: 'Adapter',
      model: '@itentialopensource/adapter-nso',
      properties: {
        id: 'nso-lab',
        type: 'NSO',
        brokers: [],
        groups: [],
        properties: {
          http: { host: '127.0.0.1', port: peer.port },
          ssl: { enabled: false, acceptInvalidCerts: false },
          credentials: { user: peer.user, passwd: 'nso-secret' },
          healthcheck: { intervalSeconds: 0.5, failuresBeforeDead: 2 },
        },
      },
    };
    const res = await platform.http('POST', '/adapters', { token, body: { properties: nso } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      data: { properties: { type: 'NSO', properties: { credentials: { user: peer.user, passwd: '********' } } } },
    });
    await platform.http('PUT', '/adapters/nso-lab/start', { token });
    await until('nso-lab', (h) => h.state === 'RUNNING', 'RUNNING');
    // the peer is no NSO: /restconf is a 404 with wrong credentials (Basic nso-secret): still an answer, so ONLINE
    const check = peer.received.filter((r) => r.path === '/restconf').at(-1);
    expect(check?.headers.authorization).toBe(`Basic ${Buffer.from(`${peer.user}:nso-secret`).toString('base64')}`);
    expect((await health('nso-lab')).connection).toEqual({ state: 'ONLINE' });
    expect((await platform.http('DELETE', '/adapters/nso-lab', { token })).status).toBe(200);
  });
});

describe("an adapter's own credentials echoed by its system", () => {
  it('are masked in what a call through it answers (bus call and task): the API key as sent in the query, URL-encoded', async () => {
    const key = 'adapter key/with+chars&more';
    // a system that repeats the request it was sent (its URL, so the key in its query) in a refusal
    const echo = createServer((req, res) => {
      if (req.url?.startsWith('/health') === true) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
        return;
      }
      res.writeHead(403, { 'content-type': 'application/json', 'x-request-was': req.url ?? '' });
      res.end(
        JSON.stringify({
          error: `refused ${req.method ?? ''} ${req.url ?? ''}`,
          key: new URL(req.url ?? '/', 'http://x').searchParams.get('api_key'),
        }),
      );
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    try {
      const doc = httpAdapter('echo-adapter', 'unused-password');
      const props = (doc.properties as { properties: Record<string, unknown> }).properties;
      props.server = { protocol: 'http', host: '127.0.0.1', port: (echo.address() as AddressInfo).port, base_path: '/api' };
      props.authentication = { type: 'apiKey', in: 'query', name: 'api_key', api_key: key };
      props.healthcheck = { path: '/health', intervalSeconds: 5, failuresBeforeDead: 4 };
      expect((await platform.http('POST', '/adapters', { token, body: { properties: doc } })).status).toBe(200);
      await platform.http('PUT', '/adapters/echo-adapter/start', { token });
      await until('echo-adapter', (h) => h.state === 'RUNNING', 'RUNNING');

      const client = createBusClient({ bus: platform.bus });
      const answer = await client.call(
        'admin.callAdapter',
        { body: { adapter: 'echo-adapter', method: 'GET', path: '/things' } },
        { caller: SYSTEM_CALLER, timeoutMs: 10_000 },
      );
      expect(answer.body).toMatchObject({
        status: 403,
        headers: { 'x-request-was': `/api/things?api_key=${SECRET_MASK}` },
        body: { error: `refused GET /api/things?api_key=${SECRET_MASK}`, key: SECRET_MASK },
      });
      // a task's failure carries the answer in its details, which become the task's error
      const failed = await client
        .call(
          'admin.runTask',
          { body: { app: 'echo-adapter', method: 'genericAdapterRequest', incoming: { uriPath: '/things', restMethod: 'GET' } } },
          { caller: SYSTEM_CALLER, timeoutMs: 10_000 },
        )
        .catch((e: unknown) => e);
      expect(isAppError(failed) && failed.details).toMatchObject({ body: { key: SECRET_MASK } });
      const seen = JSON.stringify([answer.body, isAppError(failed) && [failed.message, failed.details]]);
      expect(seen).toContain(`api_key=${SECRET_MASK}`);
      for (const form of [key, encodeURIComponent(key)]) expect(seen).not.toContain(form);
    } finally {
      await platform.http('PUT', '/adapters/echo-adapter/stop', { token });
      echo.closeAllConnections();
      await new Promise((resolve) => echo.close(resolve));
    }
  });
});

describe('PUT /adapters/:name/properties', () => {
  it('names the offending member as the request wrote it: its body is the settings alone, under properties', async () => {
    const created = await platform.http('POST', '/adapters', { token, body: { properties: httpAdapter('settings-only', peer.password) } });
    expect(created.status).toBe(200);
    const settings = (httpAdapter('settings-only', peer.password) as { properties: { properties: Record<string, unknown> } }).properties
      .properties;
    const emptyHost = await platform.http('PUT', '/adapters/settings-only/properties', {
      token,
      body: { properties: { ...settings, server: { protocol: 'http', host: '', port: peer.port } } },
    });
    expect(emptyHost.status).toBe(400);
    expect(emptyHost.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ member: 'body.properties.server.host' }] });
    expect((emptyHost.body as { message: string }).message).not.toContain('properties.properties');
    const noServer = await platform.http('PUT', '/adapters/settings-only/properties', { token, body: { properties: {} } });
    expect(noServer.status).toBe(400);
    expect(noServer.body).toMatchObject({ details: [{ member: 'body.properties.server' }] });
    // a secret to keep must be there to keep; a password-less login names the member too
    const noPassword = await platform.http('PUT', '/adapters/settings-only/properties', {
      token,
      body: { properties: { ...settings, authentication: { type: 'basic', username: peer.user } } },
    });
    expect(noPassword.status).toBe(400);
    expect(JSON.stringify(noPassword.body)).toContain('body.properties.authentication');
    expect(JSON.stringify(noPassword.body)).not.toContain('properties.properties');
    // the whole document still names its members where that body has them
    const whole = await platform.http('PUT', '/adapters/settings-only', {
      token,
      body: {
        properties: { ...httpAdapter('settings-only', peer.password), properties: { type: 'HTTP', properties: { server: { host: '' } } } },
      },
    });
    expect(whole.status).toBe(400);
    expect(JSON.stringify(whole.body)).toContain('body.properties.properties.properties.server');
    expect((await platform.http('DELETE', '/adapters/settings-only', { token })).status).toBe(200);
    // what the deletion leaves says who deleted it, not when a second time
    const tombstone = await platform.stores.get('admin')?.collection('adapters').findOne({ _id: 'settings-only' });
    expect(tombstone).toMatchObject({ state: 'DELETED', lastUpdatedBy: 'admin', lastUpdated: expect.any(String) });
  });
});

describe('adapterChanged of an adapter whose name is no subject token', () => {
  it('is published for a name with spaces or dots, its subject id percent-encoded, its payload the name as it is', async () => {
    const name = 'NSO lab 1.2*>';
    const created = await platform.http('POST', '/adapters', { token, body: { properties: httpAdapter(name, peer.password) } });
    expect(created.status).toBe(200);
    expect((await platform.http('DELETE', `/adapters/${encodeURIComponent(name)}`, { token })).status).toBe(200);
    const mine = await eventually('the adapter events of the spaced name', async () => {
      const found = events.filter((e) => e.payload.name === name);
      return found.length >= 2 && found;
    });
    expect(mine.map((e) => [e.subject, e.payload.reason])).toEqual([
      ['nap.evt.admin.adapter.NSO%20lab%201%2E2%2A%3E.adapterChanged', 'created'],
      ['nap.evt.admin.adapter.NSO%20lab%201%2E2%2A%3E.adapterChanged', 'deleted'],
    ]);
  });
});
