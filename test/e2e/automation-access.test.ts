import type { ImportResult } from '@nap/contracts';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';

/**
 * Automations of the operations manager are group-scoped records: one whose `gbac` lists groups is
 * read (get, list, export) by members of its read or write groups and changed (delete, its
 * triggers) by members of its write groups; admins pass. A malformed gbac, and groups that do not
 * exist, are refused, on creation and on import alike.
 */

let platform: TestPlatform;
let admin: string;
let eve: string;
let secret: string;
let readers: string;
let guardedId: string;
let readOnlyId: string;

type Envelope<T> = { message: string; data: T; metadata: Record<string, unknown> };

async function group(name: string, roles: string[]): Promise<string> {
  const res = await platform.http('POST', '/user-management/groups', { token: admin, body: { group: { name } } });
  const id = (res.body as { data: { _id: string } }).data._id;
  await platform.http('PUT', `/user-management/groups/${id}/roles`, { token: admin, body: { roles } });
  return id;
}

async function automation(token: string, body: Record<string, unknown>): Promise<{ status: number; body: unknown }> {
  return platform.http('POST', '/operations-manager/automations', { token, body: { automation: body } });
}

beforeAll(async () => {
  platform = await startTestPlatform();
  admin = await platform.login();
  const engineers = await group('access-engineers', ['engineering']);
  secret = await group('access-secret', ['engineering']);
  readers = await group('access-readers', ['engineering']);
  await platform.http('POST', '/user-management/accounts', {
    token: admin,
    body: { account: { username: 'access-eve', password: 'access-eve-password-1', groups: [engineers, readers] } },
  });
  eve = await platform.login('access-eve', 'access-eve-password-1');
  const guarded = await automation(admin, { name: 'access-guarded', gbac: { write: [secret], read: [secret] } });
  expect(guarded.status).toBe(200);
  guardedId = (guarded.body as { data: { _id: string } }).data._id;
  const readOnly = await automation(admin, { name: 'access-read-only', gbac: { write: [secret], read: [readers] } });
  readOnlyId = (readOnly.body as { data: { _id: string } }).data._id;
  expect((await automation(admin, { name: 'access-open' })).status).toBe(200);
}, 60_000);

afterAll(async () => {
  await platform.stop();
});

it("refuses a caller outside an automation's groups: 403 GROUP_ACCESS_DENIED on get, export, delete and its triggers, and leaves it out of lists", async () => {
  for (const [method, route] of [
    ['GET', `/operations-manager/automations/${guardedId}`],
    ['GET', `/operations-manager/automations/${guardedId}/export`],
    ['DELETE', `/operations-manager/automations/${guardedId}`],
    ['DELETE', `/operations-manager/triggers/action/${guardedId}`],
  ] as const) {
    const res = await platform.http(method, route, { token: eve });
    expect({ method, route, status: res.status, body: res.body }).toMatchObject({ status: 403, body: { code: 'GROUP_ACCESS_DENIED' } });
  }
  const trigger = await platform.http('POST', '/operations-manager/triggers', {
    token: eve,
    body: { trigger: { name: 'sneak', type: 'endpoint', actionId: guardedId, routeName: 'access-sneak' } },
  });
  expect(trigger.body).toMatchObject({ code: 'GROUP_ACCESS_DENIED' });
  const list = await platform.http('GET', '/operations-manager/automations?limit=100', { token: eve });
  const names = (list.body as Envelope<{ name: string }[]>).data.map((a) => a.name);
  expect(names).toEqual(expect.arrayContaining(['access-open', 'access-read-only']));
  expect(names).not.toContain('access-guarded');
  expect((list.body as Envelope<unknown>).metadata.total).toBe(names.length);
  // admins see and may change everything
  expect((await platform.http('GET', `/operations-manager/automations/${guardedId}`, { token: admin })).status).toBe(200);
  const all = await platform.http('GET', '/operations-manager/automations?limit=100', { token: admin });
  expect((all.body as Envelope<{ name: string }[]>).data.map((a) => a.name)).toContain('access-guarded');
});

it('keeps the triggers of an automation from callers outside its groups: get, export, change, delete, run and the list', async () => {
  const created = await platform.http('POST', '/operations-manager/triggers', {
    token: admin,
    body: { trigger: { name: 'guarded endpoint', type: 'endpoint', actionId: guardedId, routeName: 'access-guarded' } },
  });
  expect(created.status).toBe(200);
  const id = (created.body as Envelope<{ _id: string }>).data._id;
  for (const [method, route, body] of [
    ['GET', `/operations-manager/triggers/${id}`, undefined],
    ['GET', `/operations-manager/triggers/${id}/export`, undefined],
    ['PATCH', `/operations-manager/triggers/${id}`, { enabled: false }],
    ['DELETE', `/operations-manager/triggers/${id}`, undefined],
    ['POST', '/operations-manager/triggers/endpoint/access-guarded', {}],
  ] as const) {
    const res = await platform.http(method, route, { token: eve, ...(body !== undefined ? { body } : {}) });
    expect({ method, route, status: res.status, body: res.body }).toMatchObject({ status: 403, body: { code: 'GROUP_ACCESS_DENIED' } });
  }
  const list = await platform.http('GET', '/operations-manager/triggers?limit=100', { token: eve });
  expect((list.body as Envelope<{ _id: string }[]>).data.map((t) => t._id)).not.toContain(id);
  const all = await platform.http('GET', '/operations-manager/triggers?limit=100', { token: admin });
  expect((all.body as Envelope<{ _id: string }[]>).data.map((t) => t._id)).toContain(id);
});

it('lets a member of the read groups read an automation, but not change it', async () => {
  expect((await platform.http('GET', `/operations-manager/automations/${readOnlyId}`, { token: eve })).status).toBe(200);
  const del = await platform.http('DELETE', `/operations-manager/automations/${readOnlyId}`, { token: eve });
  expect(del.status).toBe(403);
  expect(del.body).toMatchObject({ code: 'GROUP_ACCESS_DENIED', message: expect.stringContaining('for write') });
  expect((await platform.http('GET', `/operations-manager/automations/${readOnlyId}`, { token: admin })).status).toBe(200);
});

it('refuses a malformed gbac and groups that do not exist, on creation and on import, naming gbac', async () => {
  const bad = await automation(admin, { name: 'access-bad', gbac: 'bad' });
  expect(bad.status).toBe(400);
  expect(bad.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ member: 'body.automation.gbac' }] });
  const missing = await automation(admin, { name: 'access-missing', gbac: { write: ['no-such-group'] } });
  expect(missing.status).toBe(404);
  expect(missing.body).toMatchObject({ code: 'GROUP_NOT_FOUND', message: expect.stringContaining('no-such-group') });
  const imported = await platform.http('PUT', '/operations-manager/automations', {
    token: admin,
    body: {
      automations: [
        { name: 'access-imp-bad', gbac: 'bad' },
        { name: 'access-imp-missing', gbac: { read: ['no-such-group'], write: [] } },
        { name: 'access-imp-good', gbac: { read: [readers], write: [] } },
      ],
      options: {},
    },
  });
  expect(imported.status).toBe(200);
  const items = (imported.body as ImportResult<unknown, unknown>).imported;
  expect(items.map((i) => i.success)).toEqual([false, false, true]);
  expect(items[0]?.message).toContain('gbac');
  expect(items[1]?.message).toContain('no-such-group');
  const list = await platform.http('GET', '/operations-manager/automations?limit=100', { token: admin });
  expect((list.body as Envelope<{ name: string }[]>).data.map((a) => a.name)).not.toEqual(
    expect.arrayContaining(['access-imp-bad', 'access-bad']),
  );
});

it("answers a duplicate automation with the existing automation's id", async () => {
  const again = await automation(admin, { name: 'access-guarded' });
  expect(again.status).toBe(409);
  expect(again.body).toMatchObject({ code: 'AUTOMATION_ALREADY_EXISTS', message: expect.stringContaining(guardedId) });
});
