import { APPLICATION_NAMES } from '@nap/contracts';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';

/**
 * Profiles through HTTP: defaults filled by the server, exactly one active profile switched in one
 * write, live members applied at once (the session idle limit among them) and the answer saying
 * which need a restart, secrets sealed and masked, and the usual 400/404/409.
 */

let platform: TestPlatform;
let token: string;

type ProfileRecord = { metadata: { isActive: boolean; activeSync: boolean }; profile: Record<string, unknown> & { id: string } };
type ProfileChange = ProfileRecord & { applied: string[]; restartRequired: string[] };

beforeAll(async () => {
  platform = await startTestPlatform();
  token = await platform.login();
});

afterAll(async () => {
  await platform?.stop();
});

const call = async (method: string, route: string, body?: unknown, as = token) =>
  platform.http(method, route, { token: as, ...(body !== undefined ? { body } : {}) });

async function active(): Promise<string[]> {
  const res = await call('GET', '/profiles');
  return (res.body as { results: ProfileRecord[] }).results.filter((r) => r.metadata.isActive).map((r) => r.profile.id);
}

it('starts with the default profile active and in sync with every replica', async () => {
  const res = await call('GET', '/profiles');
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ total: 1, results: [{ metadata: { isActive: true, activeSync: true }, profile: { id: 'default' } }] });
});

it('answers the JSON Schema it validates profiles with', async () => {
  const res = await call('GET', '/schema/profiles');
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({
    $id: 'nap:schemas/profile',
    required: ['id'],
    additionalProperties: false,
    properties: { authenticationProps: { properties: { logoutTime: { type: 'integer' } } } },
  });
});

it("creates a profile with the server's defaults, inactive; refuses a duplicate and invalid documents naming the member", async () => {
  const res = await call('POST', '/profiles', { properties: { id: 'lab', description: 'the lab', integrationProps: { threadCount: 4 } } });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({
    metadata: { isActive: false, activeSync: false },
    profile: expect.objectContaining({
      id: 'lab',
      description: 'the lab',
      services: [...APPLICATION_NAMES],
      integrationProps: { timeout: 30_000, threadCount: 4 },
      prebuiltProps: { repoConfigs: {} },
      loggerProps: {},
    }),
  });
  const again = await call('POST', '/profiles', { properties: { id: 'lab' } });
  expect(again.status).toBe(409);
  expect(again.body).toMatchObject({ code: 'PROFILE_ALREADY_EXISTS' });

  for (const [properties, member] of [
    [{ id: 'bad', bogus: 1 }, 'bogus'],
    [{ id: 'bad', authenticationProps: { logoutTime: 0 } }, 'logoutTime'],
    [{ id: 'bad', services: ['NoSuchApp'] }, 'services'],
    [{ description: 'no id' }, 'id'],
    [{ id: 'bad', prebuiltProps: { repoConfigs: { r: { type: 'ftp', path: '/x' } } } }, 'type'],
  ] as const) {
    const bad = await call('POST', '/profiles', { properties });
    expect({ member, status: bad.status }).toEqual({ member, status: 400 });
    expect(bad.body).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining(member) });
  }
  expect((await call('GET', '/profiles/bad')).status).toBe(404);
});

it('answers 404 for an unknown profile on every route', async () => {
  for (const [method, route, body] of [
    ['GET', '/profiles/nope'],
    ['GET', '/profiles/nope/export'],
    ['PUT', '/profiles/nope', { properties: { id: 'nope' } }],
    ['PUT', '/profiles/nope/active'],
    ['DELETE', '/profiles/nope'],
  ] as const) {
    const res = await call(method, route, body);
    expect({ route, method, status: res.status }).toEqual({ route, method, status: 404 });
    expect(res.body).toMatchObject({ code: 'PROFILE_NOT_FOUND' });
  }
});

it('seals repository tokens, answers them as ********, and refuses an import that still carries the mask', async () => {
  const repo = {
    type: 'gitlab',
    path: 'itentialopensource/pre-built-automations',
    hostname: 'gitlab.com',
    credentials: { token: 'glpat-very-secret-token' },
  };
  const alarm = { ip: '192.0.2.10', community: 'snmp-community-secret', type: 'snmp' };
  const created = await call('POST', '/profiles', {
    properties: { id: 'with-repo', prebuiltProps: { repoConfigs: { gitlab: repo } }, alarmProps: [alarm] },
  });
  expect(created.status).toBe(200);
  expect(JSON.stringify(created.body)).not.toMatch(/glpat-very-secret-token|snmp-community-secret/);
  expect(created.body).toMatchObject({
    profile: {
      prebuiltProps: { repoConfigs: { gitlab: { credentials: { token: '********' } } } },
      alarmProps: [{ ip: '192.0.2.10', community: '********' }],
    },
  });
  const stored = await platform.stores.get('admin')?.collection('profiles').findOne({ _id: 'with-repo' });
  expect(JSON.stringify(stored)).not.toMatch(/glpat-very-secret-token|snmp-community-secret/);

  const exported = await call('GET', '/profiles/with-repo/export');
  expect(exported.status).toBe(200);
  expect(exported.body).toMatchObject({
    id: 'with-repo',
    prebuiltProps: { repoConfigs: { gitlab: { credentials: { token: '********' } } } },
  });
  const copy = { ...(exported.body as Record<string, unknown>), id: 'copy' };
  const refused = await call('POST', '/profiles/import', { profile: copy });
  expect(refused.status).toBe(400);
  expect(refused.body).toMatchObject({
    message: expect.stringContaining('body.profile.prebuiltProps.repoConfigs.gitlab.credentials.token'),
  });
  const imported = await call('POST', '/profiles/import', {
    profile: { ...copy, prebuiltProps: { repoConfigs: { gitlab: repo } }, alarmProps: [alarm] },
  });
  expect(imported.status).toBe(200);
  expect(imported.body).toMatchObject({ metadata: { isActive: false }, profile: { id: 'copy' } });
  // an update that sends the mask keeps the sealed token
  const kept = await call('PUT', '/profiles/copy', { properties: { ...copy, description: 'kept' } });
  expect(kept.status).toBe(200);
  expect(kept.body).toMatchObject({
    profile: { description: 'kept', prebuiltProps: { repoConfigs: { gitlab: { credentials: { token: '********' } } } } },
    applied: [],
    restartRequired: [],
  });
  expect((await call('PUT', '/profiles/copy', { properties: { id: 'renamed' } })).body).toMatchObject({
    code: 'VALIDATION_FAILED',
    message: expect.stringContaining('body.properties.id'),
  });
});

it('switches the active profile in one step: exactly one active, live members applied at once, the rest named as needing a restart', async () => {
  await call('POST', '/profiles', {
    properties: {
      id: 'strict',
      loggerProps: { console_level: 'error', log_level: 'error' },
      authenticationProps: { logoutTime: 5 },
      expressProps: { timeout: 120_000 },
      integrationProps: { timeout: 10_000 },
    },
  });
  const res = await call('PUT', '/profiles/strict/active');
  expect(res.status).toBe(200);
  const change = res.body as ProfileChange;
  expect(change.metadata).toEqual({ isActive: true, activeSync: true });
  expect(change.applied).toEqual([
    'authenticationProps.logoutTime',
    'integrationProps.timeout',
    'loggerProps.console_level',
    'loggerProps.log_level',
  ]);
  expect(change.restartRequired).toEqual(['description', 'expressProps.timeout']);
  expect(await active()).toEqual(['strict']);
  // the level reached every application's replicas
  const mop = (await call('GET', '/applications/MOP')).body as {
    metadata: { activeSync: boolean };
    data: { loggerProps: Record<string, unknown> };
  };
  expect(mop).toMatchObject({ metadata: { activeSync: true }, data: { loggerProps: { console_level: 'error' } } });

  const del = await call('DELETE', '/profiles/strict');
  expect(del.status).toBe(409);
  expect(del.body).toMatchObject({ code: 'PROFILE_ACTIVE' });

  // switches racing each other still leave exactly one active profile
  await Promise.all(['lab', 'strict', 'lab', 'default', 'strict'].map((id) => call('PUT', `/profiles/${id}/active`)));
  expect(await active()).toHaveLength(1);

  const back = await call('PUT', '/profiles/default/active');
  expect(back.body).toMatchObject({ metadata: { isActive: true }, profile: { id: 'default' } });
  expect(await active()).toEqual(['default']);
  // the default profile sets no level: every replica is back at the level it started with
  const after = (await call('GET', '/applications/MOP')).body as {
    metadata: { activeSync: boolean };
    data: { loggerProps: Record<string, unknown> };
  };
  expect(after).toMatchObject({
    metadata: { activeSync: true },
    data: { loggerProps: { console_level: process.env.NAP_LOG_LEVEL ?? 'silent' } },
  });
  expect((await call('DELETE', '/profiles/strict')).status).toBe(200);
  expect((await call('GET', '/profiles/strict')).status).toBe(404);
});

it("ends a session unused for longer than the active profile's logoutTime, and only while a profile sets one", async () => {
  const sessions = platform.stores.get('admin')?.collection('sessions');
  if (sessions === undefined) throw new Error('no admin store');
  /** Logs in and makes the new session look unused for `minutes`. */
  const idleSession = async (minutes: number): Promise<string> => {
    const fresh = await platform.login();
    const [latest] = await sessions.find({ revoked: false }, { sort: { created: -1 }, limit: 1 });
    await sessions.updateOne({ _id: latest?._id }, { $set: { lastUsed: Date.now() - minutes * 60_000 } });
    return fresh;
  };

  // the default profile sets no idle limit
  expect((await call('GET', '/whoami', undefined, await idleSession(30))).status).toBe(200);

  await call('POST', '/profiles', { properties: { id: 'idle', authenticationProps: { logoutTime: 2 } } });
  const switched = await call('PUT', '/profiles/idle/active');
  expect(switched.body).toMatchObject({ applied: ['authenticationProps.logoutTime'] });
  const idle = await call('GET', '/whoami', undefined, await idleSession(4));
  expect(idle.status).toBe(401);
  expect(idle.body).toMatchObject({ code: 'UNAUTHENTICATED', message: expect.stringContaining('logoutTime') });
  // a session used a minute ago goes on
  expect((await call('GET', '/whoami', undefined, await idleSession(1))).status).toBe(200);
  // a change of the active profile applies at once
  const updated = await call('PUT', '/profiles/idle', { properties: { id: 'idle', authenticationProps: { logoutTime: 60 } } });
  expect(updated.body).toMatchObject({
    metadata: { isActive: true, activeSync: true },
    applied: ['authenticationProps.logoutTime'],
    restartRequired: [],
  });
  expect((await call('GET', '/whoami', undefined, await idleSession(4))).status).toBe(200);
  await call('PUT', '/profiles/default/active');
});
