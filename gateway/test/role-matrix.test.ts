import { startTestPlatform } from '@nap/testing';
import type { TestPlatform } from '@nap/testing';

/** The spec's Authentication table: route → roles that may call it. */
const AUTH_TABLE: [string, string, string[]][] = [
  ['POST', '/orch_manager/restAction/nso1', ['admin']],
  ['POST', '/orch_manager/restQuery/nso1', ['admin']],
  ['POST', '/orch_manager/setLeaf/nso1', ['admin']],
  ['GET', '/operations-manager/jobs', ['admin', 'engineering', 'apiread', 'operations']],
  ['POST', '/operations-manager/automations', ['admin', 'apiwrite', 'engineering']],
  ['GET', '/health/adapters', ['admin', 'apiread']],
  ['POST', '/user-management/groups', ['admin']],
  ['POST', '/gw/ssh/send_command', ['admin']],
  ['POST', '/configuration_manager/templates/search', ['admin', 'apiread']],
  ['POST', '/mop/createAnalyticTemplate', ['admin', 'apiwrite']],
  ['POST', '/formbuilder/forms/export', ['admin', 'apiread']],
];
const ROLES = ['admin', 'engineering', 'operations', 'apiread', 'apiwrite'];

let platform: TestPlatform;
const tokens = new Map<string, string>();

beforeAll(async () => {
  platform = await startTestPlatform();
  const admin = await platform.login();
  for (const role of ROLES) {
    const group = await platform.http('POST', '/user-management/groups', { token: admin, body: { group: { name: `only-${role}` } } });
    const groupId = (group.body as { data: { _id: string } }).data._id;
    await platform.http('PUT', `/user-management/groups/${groupId}/roles`, { token: admin, body: { roles: [role] } });
    await platform.http('POST', '/user-management/accounts', { token: admin, body: { account: { username: `only-${role}`, password: 'password-123', groups: [groupId] } } });
    tokens.set(role, await platform.login(`only-${role}`, 'password-123'));
  }
  // an account without any group holds no role at all
  await platform.http('POST', '/user-management/accounts', { token: admin, body: { account: { username: 'no-role', password: 'password-123' } } });
  tokens.set('none', await platform.login('no-role', 'password-123'));
});

afterAll(async () => {
  await platform.stop();
});

const cases = AUTH_TABLE.flatMap(([method, route, allowed]) => [...ROLES, 'none'].map((role) => [method, route, role, allowed.includes(role)] as const));

it.each(cases)('%s %s as %s: allowed=%s', async (method, route, role, allowed) => {
  const res = await platform.http(method, route, { token: tokens.get(role) ?? '', ...(method === 'GET' ? {} : { body: {} }) });
  if (allowed) {
    expect([401, 403]).not.toContain(res.status);
  } else {
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ status: 'error', code: 'FORBIDDEN' });
  }
});
