import { APPLICATION_NAMES, applicationsOfService } from '@nap/contracts';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';

/**
 * Applications through HTTP: the six services under the original platform's application names,
 * state from live discovery, live settings and log levels carried to the replicas over their
 * control channels, stop/start/restart through the bus pause, and AdminEssentials protected.
 */

let platform: TestPlatform;
let token: string;

type AppRecord = {
  metadata: { isActive: boolean; activeSync: boolean; state: string; service: string; applications: string[] };
  data: {
    name: string;
    type: string;
    model: string;
    description: string;
    loggerProps: Record<string, unknown>;
    properties: Record<string, unknown>;
  };
  instances: { id: string; instance: string; state: string }[];
};

beforeAll(async () => {
  platform = await startTestPlatform({ admin: { reconcileIntervalMs: 200 } });
  token = await platform.login();
});

afterAll(async () => {
  await platform?.stop();
});

const get = async (route: string) => platform.http('GET', route, { token });
const put = async (route: string, body?: unknown) => platform.http('PUT', route, { token, ...(body !== undefined ? { body } : {}) });

async function app(name: string): Promise<AppRecord> {
  const res = await get(`/applications/${name}`);
  expect(res.status).toBe(200);
  return res.body as AppRecord;
}

describe('reads', () => {
  it('lists every application as the original platform keeps it, running on its service', async () => {
    const res = await get('/applications');
    expect(res.status).toBe(200);
    const { results, total } = res.body as { results: AppRecord[]; total: number };
    expect(total).toBe(APPLICATION_NAMES.length);
    expect(results.map((r) => r.data.name)).toEqual([...APPLICATION_NAMES]);
    for (const r of results) {
      expect(r.data).toMatchObject({ type: 'Application', model: `@nap/${r.metadata.service}`, properties: {} });
      expect(r.metadata).toMatchObject({ isActive: true, state: 'RUNNING' });
      expect(r.instances).toHaveLength(1);
      expect(r.instances[0]?.state).toBe('running');
    }
    expect(results.find((r) => r.data.name === 'WorkFlowEngine')?.metadata).toMatchObject({
      service: 'workflow',
      applications: ['AutomationCatalog', 'OperationsManager', 'WorkFlowEngine'],
    });
    const filtered = await get('/applications?contains=manager');
    expect((filtered.body as { results: AppRecord[] }).results.map((r) => r.data.name)).toEqual([
      'AGManager',
      'ConfigurationManager',
      'OperationsManager',
      'OrchManager',
    ]);
  });

  it('answers 404 naming the applications for an unknown one, on every route', async () => {
    for (const [method, route, body] of [
      ['GET', '/applications/Nope'],
      ['GET', '/applications/Nope/changelogs'],
      ['GET', '/schema/applications/Nope'],
      ['GET', '/health/applications/Nope'],
      ['PUT', '/applications/Nope/start'],
      ['PUT', '/applications/Nope/stop'],
      ['PUT', '/applications/Nope/restart'],
      ['PUT', '/applications/Nope/loglevel', { properties: { level: 'info' } }],
      ['PUT', '/applications/Nope/properties', { properties: {} }],
      ['PUT', '/applications/Nope', { properties: { description: 'x' } }],
    ] as const) {
      const res = await platform.http(method, route, { token, ...(body !== undefined ? { body } : {}) });
      expect({ route, status: res.status }).toEqual({ route, status: 404 });
      expect(res.body).toMatchObject({ code: 'APPLICATION_NOT_FOUND', message: expect.stringContaining('AdminEssentials') });
    }
  });

  it("gives the JSON Schema of an application's live settings", async () => {
    const res = await get('/schema/applications/ConfigurationManager');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      $id: 'nap:schemas/settings/gateway-devices',
      additionalProperties: false,
      properties: { deviceSessionLimit: { type: 'integer' } },
    });
    expect(((await get('/schema/applications/MOP')).body as { properties: object }).properties).toEqual({});
  });
});

describe('live settings and log levels', () => {
  it('applies live settings on every replica at once and says which; refuses what is not one, naming it', async () => {
    const res = await put('/applications/GatewayDevices/properties', { properties: { deviceSessionLimit: 5, connectTimeoutMs: 20_000 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      data: { name: 'GatewayDevices', properties: { deviceSessionLimit: 5, connectTimeoutMs: 20_000 } },
      changes: { applied: ['connectTimeoutMs', 'deviceSessionLimit'], replicas: 1, restartRequired: [] },
    });
    // the replica itself reports the settings in force (activeSync compares its answer with what was set)
    const record = await app('AGManager');
    expect(record.metadata.activeSync).toBe(true);
    expect(record.data.properties).toEqual({ deviceSessionLimit: 5, connectTimeoutMs: 20_000 });

    const tooSmall = await put('/applications/GatewayDevices/properties', { properties: { deviceSessionLimit: 0 } });
    expect(tooSmall.status).toBe(400);
    expect(tooSmall.body).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('deviceSessionLimit') });
    const unknown = await put('/applications/GatewayDevices/properties', { properties: { listenPort: 8080 } });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining('body.properties.listenPort'),
      details: [{ member: 'body.properties.listenPort' }],
    });
    const none = await put('/applications/MOP/properties', { properties: { anything: 1 } });
    expect(none.status).toBe(400);
    expect(none.body).toMatchObject({ message: expect.stringContaining('it has none') });
    // nothing of the refused changes was stored
    expect((await app('GatewayDevices')).data.properties).toEqual({ deviceSessionLimit: 5, connectTimeoutMs: 20_000 });

    // members left out go back to the process's start values
    const reset = await put('/applications/GatewayDevices/properties', { properties: {} });
    expect(reset.body).toMatchObject({ changes: { applied: ['connectTimeoutMs', 'deviceSessionLimit'] }, data: { properties: {} } });
  });

  it('gives new tokens the lifetime AdminEssentials is set to, at once', async () => {
    const set = await put('/applications/AdminEssentials/properties', { properties: { tokenTtlSeconds: 120 } });
    expect(set.body).toMatchObject({ changes: { applied: ['tokenTtlSeconds'], replicas: 1 } });
    const short = await platform.login();
    const session = (await platform.http('GET', '/mySession', { token: short })).body as { created: string; expires: string };
    expect(Date.parse(session.expires) - Date.parse(session.created)).toBe(120_000);
    await put('/applications/AdminEssentials/properties', { properties: {} });
    const normal = (await platform.http('GET', '/mySession', { token: await platform.login() })).body as {
      created: string;
      expires: string;
    };
    expect(Date.parse(normal.expires) - Date.parse(normal.created)).toBe(43_200_000);
  });

  it('sets the log level of every replica at once from { properties: { transport, level } }; an unknown level is 400', async () => {
    const res = await put('/applications/Jst/loglevel', { properties: { transport: 'console', level: 'error' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ console_level: 'error' });
    const record = await app('TemplateBuilder');
    expect(record.data.loggerProps).toMatchObject({ console_level: 'error' });
    expect(record.metadata.activeSync).toBe(true);

    const unknown = await put('/applications/Jst/loglevel', { properties: { level: 'verbose' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('level') });
    const flat = await put('/applications/Jst/loglevel', { level: 'error' });
    expect(flat.status).toBe(400);
    expect(flat.body).toMatchObject({ message: expect.stringContaining('properties') });
    const transport = await put('/applications/Jst/loglevel', { properties: { level: 'error', transport: 'kafka' } });
    expect(transport.status).toBe(400);
    expect(transport.body).toMatchObject({ message: expect.stringContaining('transport') });
  });

  it('changes the description and loggerProps with PUT /applications/:name; name and model stay', async () => {
    const res = await put('/applications/MOP', {
      properties: { description: 'Pre and post checks', loggerProps: { log_level: 'warn', console_level: 'warn' } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      data: { name: 'MOP', description: 'Pre and post checks', loggerProps: { console_level: 'warn' } },
      changes: { applied: [] },
    });
    const renamed = await put('/applications/MOP', { properties: { name: 'Other' } });
    expect(renamed.status).toBe(400);
    expect(renamed.body).toMatchObject({ message: expect.stringContaining('body.properties.name') });
    const model = await put('/applications/MOP', { properties: { model: '@nap/studio' } });
    expect(model.status).toBe(400);
    expect(model.body).toMatchObject({ message: expect.stringContaining('body.properties.model') });
    const level = await put('/applications/MOP', { properties: { loggerProps: { console_level: 'loud' } } });
    expect(level.status).toBe(400);
    expect(level.body).toMatchObject({ message: expect.stringContaining('console_level') });

    const changelog = await get('/applications/MOP/changelogs');
    expect(changelog.status).toBe(200);
    // the refused changes left no entry
    expect(changelog.body).toMatchObject({
      total: 1,
      results: [{ version: '1', changes: expect.stringMatching(/^loggerProps, description changed by admin/) }],
    });
  });
});

describe('stop, start and restart', () => {
  it('stops the service behind an application: its routes answer 503, every application it serves is STOPPED, start brings it back', async () => {
    expect((await get('/automation-studio/component-groups')).status).toBe(200);
    const stopped = await put('/applications/Jst/stop');
    expect(stopped.status).toBe(200);
    expect(stopped.body).toEqual({
      name: 'Jst',
      state: 'STOPPED',
      service: 'studio',
      applications: applicationsOfService('studio'),
      replicas: 1,
    });

    const route = await get('/automation-studio/component-groups');
    expect(route.status).toBe(503);
    expect(route.body).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      message: expect.stringContaining(
        'stopped by an operator (applications AutomationStudio, FormBuilder, JsonForms, Jst, TemplateBuilder)',
      ),
    });
    const studio = await app('AutomationStudio');
    expect(studio.metadata).toMatchObject({ isActive: false, state: 'STOPPED' });
    expect(studio.instances.map((i) => i.state)).toEqual(['paused']);
    const health = await get('/health/applications/FormBuilder');
    expect(health.body).toMatchObject({ state: 'STOPPED', instances: [{ state: 'paused' }] });
    // other services go on
    expect((await get('/mop/listAnalyticTemplates')).status).toBe(200);

    const started = await put('/applications/FormBuilder/start');
    expect(started.body).toMatchObject({ name: 'FormBuilder', state: 'RUNNING', applications: applicationsOfService('studio') });
    expect((await get('/automation-studio/component-groups')).status).toBe(200);
    expect((await app('Jst')).metadata).toMatchObject({ isActive: true, state: 'RUNNING' });
  });

  it('restarts every replica of the service and answers RUNNING', async () => {
    const res = await put('/applications/MOP/restart');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ name: 'MOP', state: 'RUNNING', service: 'mop', applications: ['MOP'], replicas: 1 });
    expect((await get('/mop/listAnalyticTemplates')).status).toBe(200);
    const log = (await get('/applications/MOP/changelogs')).body as { results: { changes: string }[] };
    expect(log.results[0]?.changes).toMatch(/^restarted by admin/);
  });

  it('refuses to stop or restart AdminEssentials with 409, so no operator is locked out', async () => {
    for (const action of ['stop', 'restart']) {
      const res = await put(`/applications/AdminEssentials/${action}`);
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ code: 'APPLICATION_PROTECTED', message: expect.stringContaining('AdminEssentials') });
    }
    expect((await app('AdminEssentials')).metadata).toMatchObject({ isActive: true, state: 'RUNNING' });
    // starting it is harmless
    expect((await put('/applications/AdminEssentials/start')).body).toMatchObject({ state: 'RUNNING' });
  });
});

describe('a service with no replica answering', () => {
  let partial: TestPlatform;
  let partialToken: string;

  beforeAll(async () => {
    partial = await startTestPlatform({ services: ['admin', 'workflow'] });
    partialToken = await partial.login();
  });

  afterAll(async () => {
    await partial?.stop();
  });

  it('is DEAD, not RUNNING, with no instances; its routes answer 503', async () => {
    const res = await partial.http('GET', '/applications/MOP', { token: partialToken });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ metadata: { state: 'DEAD', isActive: true, activeSync: false }, instances: [] });
    const health = await partial.http('GET', '/health/applications', { token: partialToken });
    const states = Object.fromEntries(
      (health.body as { results: { name: string; state: string }[] }).results.map((h) => [h.name, h.state]),
    );
    expect(states).toMatchObject({ MOP: 'DEAD', Jst: 'DEAD', OrchManager: 'DEAD', WorkFlowEngine: 'RUNNING', AdminEssentials: 'RUNNING' });
    const dead = await partial.http('GET', '/mop/listAnalyticTemplates', { token: partialToken });
    expect(dead.status).toBe(503);
    expect(dead.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: expect.not.stringContaining('stopped by an operator') });
    // stopping a service none of whose replicas answers is recorded; the answer says it is DEAD
    const stopped = await partial.http('PUT', '/applications/MOP/stop', { token: partialToken });
    expect(stopped.body).toMatchObject({ state: 'DEAD', replicas: 0 });
    expect((await partial.http('GET', '/applications/MOP', { token: partialToken })).body).toMatchObject({
      metadata: { isActive: false, state: 'STOPPED' },
    });
  });
});
