import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';

/**
 * The integration record as the spec lists it, the bodies that set an integration (no member they
 * would ignore), and an integration never left naming a model that is gone.
 */

let platform: TestPlatform;
let token: string;

beforeAll(async () => {
  platform = await startTestPlatform({ services: ['admin'] });
  token = await platform.login();
});

afterAll(async () => {
  await platform?.stop();
});

/** A small model whose server is absolute, so an integration of it needs no settings. */
function model(title: string): Record<string, unknown> {
  return {
    openapi: '3.0.0',
    info: { title, version: '1.0' },
    servers: [{ url: 'http://127.0.0.1:18081/api' }],
    paths: { '/x': { get: { operationId: 'getX', responses: { '200': { description: 'ok' } } } } },
  };
}

async function createModel(title: string): Promise<string> {
  const res = await platform.http('POST', '/integration-models', { token, body: { model: model(title) } });
  expect(res.status).toBe(200);
  return `${title}:1.0`;
}

async function createIntegration(name: string, versionId: string): Promise<{ status: number; body: unknown }> {
  return platform.http('POST', '/integrations', {
    token,
    body: { properties: { name, model: versionId, properties: { authentication: { type: 'bearer', token: 'secret-token-1' } } } },
  });
}

type IntegrationData = Record<string, unknown> & { version: number; properties: Record<string, unknown> };

describe('the integration record', () => {
  it('carries loggerProps, systemProps and eventDeduplication as the platform holds them, on every route that answers it', async () => {
    const versionId = await createModel('RecordModel');
    const created = await createIntegration('rec1', versionId);
    expect(created.status).toBe(200);
    const expected = {
      loggerProps: { log_level: expect.any(String), console_level: expect.any(String), description: expect.any(String) },
      systemProps: { maxOldSpaceSize: expect.any(Number) },
      eventDeduplication: { active: false, cacheTtl: 0, algorithm: 'md5', uniqueProps: [] },
      isEncrypted: true,
      profiling: false,
      virtual: false,
      type: 'Application',
      name: 'rec1',
      model: versionId,
    };
    const list = (await platform.http('GET', '/integrations', { token })).body as { results: { data: IntegrationData }[] };
    const one = (await platform.http('GET', '/integrations/rec1', { token })).body as { data: IntegrationData };
    const updated = await platform.http('PUT', '/integrations/rec1', { token, body: { properties: { type: 'Application' } } });
    expect(updated.status).toBe(200);
    for (const data of [
      (created.body as { data: IntegrationData }).data,
      list.results.find((r) => r.data.name === 'rec1')?.data,
      one.data,
      (updated.body as { data: IntegrationData }).data,
    ]) {
      expect(data).toMatchObject(expected);
      const heapMb = Number((data?.systemProps as { maxOldSpaceSize: number }).maxOldSpaceSize);
      expect(Number.isInteger(heapMb) && heapMb > 16).toBe(true);
    }
    // the level is the admin service's, the one it logs at now
    const loggerProps = one.data.loggerProps as { log_level: string };
    expect(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).toContain(loggerProps.log_level);
  });
});

describe('bodies that set an integration', () => {
  it('refuses a member they do not know, naming it, and changes nothing', async () => {
    const versionId = await createModel('StrictModel');
    expect((await createIntegration('strict1', versionId)).status).toBe(200);
    const before = ((await platform.http('GET', '/integrations/strict1', { token })).body as { data: IntegrationData }).data;

    // the connection settings one level too high: the intuitive mistake, which used to answer 200 and change nothing
    for (const route of ['/integrations/strict1/properties', '/integrations/strict1']) {
      const res = await platform.http('PUT', route, {
        token,
        body: { properties: { authentication: { type: 'basic', username: 'u', password: 'p' } } },
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ member: 'body.properties.authentication' }] });
    }
    const bogus = await platform.http('PUT', '/integrations/strict1', { token, body: { properties: { bogus: 1 } } });
    expect(bogus.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ member: 'body.properties.bogus' }] });
    const outside = await platform.http('PUT', '/integrations/strict1', { token, body: { properties: {}, extra: true } });
    expect(outside.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ member: 'body.extra' }] });
    const after = ((await platform.http('GET', '/integrations/strict1', { token })).body as { data: IntegrationData }).data;
    expect(after.version).toBe(before.version);
    expect(after.properties).toEqual(before.properties);

    const created = await platform.http('POST', '/integrations', {
      token,
      body: { properties: { name: 'strict2', model: versionId, properties: {}, bogus: 1 } },
    });
    expect(created.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ member: 'body.properties.bogus' }] });
    expect((await platform.http('GET', '/integrations/strict2', { token })).status).toBe(404);
  });
});

describe('a model deleted while integrations of it are created', () => {
  it('either keeps the model for every integration made, or refuses them: never an integration without its model', async () => {
    for (let round = 0; round < 3; round++) {
      const versionId = await createModel(`RaceModel${round}`);
      const names = [0, 1, 2, 3, 4].map((i) => `race${round}-${i}`);
      const [deleted, ...created] = await Promise.all([
        platform.http('DELETE', `/integration-models/${encodeURIComponent(versionId)}`, { token }),
        ...names.map((name) => createIntegration(name, versionId)),
      ]);
      const modelThere = (await platform.http('GET', `/integration-models/${encodeURIComponent(versionId)}`, { token })).status === 200;
      const integrations = (await Promise.all(names.map((n) => platform.http('GET', `/integrations/${n}`, { token })))).filter(
        (r) => r.status === 200,
      );
      if (modelThere) {
        expect(deleted?.body).toMatchObject({ code: 'INTEGRATION_MODEL_IN_USE' });
      } else {
        expect(deleted?.status).toBe(200);
        expect(integrations).toHaveLength(0);
      }
      // every create that was answered 200 is there, every other was refused naming the model
      for (const [i, res] of created.entries()) {
        if (res.status === 200) expect(integrations.map((r) => (r.body as { data: { name: string } }).data.name)).toContain(names[i]);
        else expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ member: 'body.properties.model' }] });
      }
    }
  });
});
