import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TEST_ADMIN, startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';

/**
 * `NAP_ADMIN_PASSWORD_RESET=true` is the way back in when no account can administer any more: the
 * first administrator gets its password, and the admin role and activity back, on that start.
 */

let dataDir: string;
let platform: TestPlatform | undefined;

beforeEach(() => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'nap-admin-reset-'));
});

afterEach(async () => {
  await platform?.stop();
  platform = undefined;
  rmSync(dataDir, { recursive: true, force: true });
});

type Whoami = { _id: string; roles: string[]; groups: string[] };
type Group = { _id: string; name: string; roles: string[] };

/** Starts the platform on the kept data directory, with the reset asked for or not. */
async function start(reset: boolean): Promise<TestPlatform> {
  platform = await startTestPlatform({ dataDir, services: ['admin'], config: { adminPasswordReset: reset } });
  return platform;
}

async function restart(reset: boolean): Promise<TestPlatform> {
  await platform?.stop();
  return start(reset);
}

/** Changes the admin store directly, as a change nothing refused (or an operator's mistake) left it. */
async function inStore(p: TestPlatform, change: (s: NonNullable<ReturnType<TestPlatform['stores']['get']>>) => Promise<unknown>) {
  const store = p.stores.get('admin');
  if (store === undefined) throw new Error('no admin store');
  await change(store);
}

/** GET /whoami, its groups (`{ id, name, provenance }`) read as their ids. */
async function whoami(p: TestPlatform): Promise<Whoami> {
  const body = (await p.http('GET', '/whoami', { token: await p.login() })).body as Omit<Whoami, 'groups'> & { groups: { id: string }[] };
  return { ...body, groups: body.groups.map((g) => g.id) };
}

it('puts the first administrator back in the admins group it was taken out of', async () => {
  let p = await start(false);
  const before = await whoami(p);
  await inStore(p, (s) => s.collection('accounts').updateOne({ username: 'admin' }, { $set: { groups: [] } }));
  expect((await whoami(p)).roles).toEqual([]);

  // a start without the reset changes nothing
  p = await restart(false);
  expect((await whoami(p)).roles).toEqual([]);

  p = await restart(true);
  const after = await whoami(p);
  expect(after.roles).toContain('admin');
  expect(after.groups).toEqual(before.groups);
  const token = await p.login();
  expect((await p.http('GET', '/user-management/accounts', { token })).status).toBe(200);
});

it('makes a group with the admin role when no group of NAP gives it any more, and makes the account active again', async () => {
  let p = await start(false);
  await inStore(p, async (s) => {
    await s.collection('groups').updateOne({ name: 'admins' }, { $set: { roles: ['apiread'] } });
    await s.collection('accounts').updateOne({ username: 'admin' }, { $set: { inactive: true } });
  });
  expect((await p.http('POST', '/login', { body: { user: { username: 'admin', password: TEST_ADMIN.password } } })).status).toBe(401);

  p = await restart(true);
  const me = await whoami(p);
  expect(me.roles).toContain('admin');
  const token = await p.login();
  const groups = ((await p.http('GET', '/user-management/groups', { token })).body as { results: Group[] }).results;
  // the admins group keeps what an administrator made it (the role is not given back to everyone in it)
  expect(groups.find((g) => g.name === 'admins')?.roles).toEqual(['apiread']);
  const restored = groups.find((g) => g.name === 'admins-restored');
  expect(restored?.roles).toEqual(['admin']);
  expect(me.groups).toContain(restored?._id);

  // the next start with the reset finds nothing to do: no other group is made
  p = await restart(true);
  const again = ((await p.http('GET', '/user-management/groups', { token: await p.login() })).body as { results: Group[] }).results;
  expect(again.filter((g) => g.roles.includes('admin')).map((g) => g.name)).toEqual(['admins-restored']);
});
