import { createAdminService } from '@nap/admin';
import { createBusClient } from '@nap/bus';
import type { BusClient, CallInputOf } from '@nap/bus';
import { SYSTEM_CALLER, isAppError } from '@nap/contracts';
import type { OperationId } from '@nap/contracts';
import { createClient, loadConfig } from '@nap/runtime';
import type { RunningService } from '@nap/runtime';
import { TEST_ADMIN, startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { createLogger, createMetrics } from '@nap/telemetry';

/**
 * "The platform keeps an active account with the admin role" holds when the changes that could take
 * it away arrive together, on two replicas of the admin service sharing one store (the bus gives
 * their requests to the replicas in turn): each is checked and written under one claim in the store.
 * The changes are sent as the platform itself (not as one of the administrators they remove, whom
 * the gateway would refuse once its own change went through), so each reaches the rule.
 */

let platform: TestPlatform;
let replica: RunningService;
let client: BusClient;
let admin: string;
let adminsGroup: string;
let adminId: string;

beforeEach(async () => {
  platform = await startTestPlatform({ services: ['admin'] });
  replica = await startSecondAdminReplica(platform);
  client = createBusClient({ bus: platform.bus });
  admin = await platform.login();
  const whoami = (await platform.http('GET', '/whoami', { token: admin })).body as { _id: string; groups: { id: string }[] };
  adminId = whoami._id;
  adminsGroup = whoami.groups[0]?.id ?? '';
});

afterEach(async () => {
  await replica.stop();
  await platform.stop();
});

/** Another replica of the admin service in this process: the platform's bus and admin store, its own everything else. */
async function startSecondAdminReplica(p: TestPlatform): Promise<RunningService> {
  const store = p.stores.get('admin');
  if (store === undefined) throw new Error('the platform runs no admin service');
  const config = {
    ...loadConfig({ NAP_DATA_DIR: p.dataDir, NAP_ADMIN_PASSWORD: TEST_ADMIN.password, NAP_SECRET_KEY: 'test-secret-key-of-32-characters' }),
    logLevel: 'silent',
  };
  const metrics = createMetrics({ defaultLabels: { component: 'second-replica' } });
  const logger = createLogger({ name: 'second-replica', level: 'silent', destination: process.stderr });
  return createAdminService({ bus: p.bus, store, logger, metrics, client: createClient(p.bus, metrics), config }).start();
}

/** The operation as the platform itself: `ok`, or the code it was refused with. */
async function attempt<Id extends OperationId>(operation: Id, input: CallInputOf<Id>): Promise<string> {
  try {
    await client.call(operation, input, { caller: SYSTEM_CALLER, timeoutMs: 10_000 });
    return 'ok';
  } catch (err) {
    if (isAppError(err)) return err.code;
    throw err;
  }
}

async function createAccount(username: string, groups: string[]): Promise<string> {
  const res = await platform.http('POST', '/user-management/accounts', {
    token: admin,
    body: { account: { username, password: 'adm-password-12345', groups } },
  });
  expect(res.status).toBe(200);
  return (res.body as { data: { _id: string } }).data._id;
}

async function createGroup(name: string, roles: string[]): Promise<string> {
  const res = await platform.http('POST', '/user-management/groups', { token: admin, body: { group: { name, roles } } });
  expect(res.status).toBe(200);
  return (res.body as { data: { _id: string } }).data._id;
}

/** Active accounts that hold the admin role now, read from the store. */
async function activeAdministrators(): Promise<string[]> {
  const store = platform.stores.get('admin');
  if (store === undefined) throw new Error('no admin store');
  const adminGroups = (await store.collection('groups').find({ roles: 'admin' })).map((g) => g._id);
  const accounts = await store.collection('accounts').find({ inactive: false, groups: { $in: adminGroups } });
  return accounts.map((a) => String(a.username)).sort();
}

it('refuses all but three of four administrators leaving the admin group together', async () => {
  const others = await Promise.all(['adm1', 'adm2', 'adm3'].map((u) => createAccount(u, [adminsGroup])));
  const outcomes = await Promise.all(
    [adminId, ...others].map((accountId) => attempt('admin.setAccountGroups', { params: { accountId }, body: { groups: [] } })),
  );
  expect(outcomes.sort()).toEqual(['ACCOUNT_PROTECTED', 'ok', 'ok', 'ok']);
  expect(await activeAdministrators()).toHaveLength(1);
});

it('keeps an administrator when deleting, deactivating and leaving arrive together', async () => {
  const [adm1, adm2] = await Promise.all(['adm1', 'adm2'].map((u) => createAccount(u, [adminsGroup])));
  const outcomes = await Promise.all([
    attempt('admin.deleteAccount', { params: { accountId: adm1 ?? '' } }),
    attempt('admin.updateAccount', { params: { accountId: adm2 ?? '' }, body: { inactive: true } }),
    attempt('admin.setAccountGroups', { params: { accountId: adminId }, body: { groups: [] } }),
  ]);
  expect(outcomes.sort()).toEqual(['ACCOUNT_PROTECTED', 'ok', 'ok']);
  expect(await activeAdministrators()).toHaveLength(1);
});

it('keeps an administrator when two admin groups lose the role together, or are deleted together', async () => {
  const ops = await createGroup('ops-admins', ['admin']);
  await createAccount('ops-lead', [ops]);
  const roles = await Promise.all([
    attempt('admin.setGroupRoles', { params: { groupId: ops }, body: { roles: [] } }),
    attempt('admin.setGroupRoles', { params: { groupId: adminsGroup }, body: { roles: ['apiread'] } }),
  ]);
  expect(roles.sort()).toEqual(['ACCOUNT_PROTECTED', 'ok']);
  expect(await activeAdministrators()).toHaveLength(1);

  const keeper = (await activeAdministrators())[0] === 'admin' ? adminsGroup : ops;
  const spare = await createGroup('spare-admins', ['admin']);
  await createAccount('spare-lead', [spare]);
  const deletions = await Promise.all([
    attempt('admin.deleteGroup', { params: { groupId: keeper } }),
    attempt('admin.deleteGroup', { params: { groupId: spare } }),
  ]);
  expect(deletions.sort()).toEqual(['ACCOUNT_PROTECTED', 'ok']);
  expect(await activeAdministrators()).toHaveLength(1);
});
