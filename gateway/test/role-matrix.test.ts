import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';

type Answer = { status: number; body: unknown };

/**
 * The spec's Authentication table: route → roles that may call it, with a request that the operation
 * accepts and a check that it ran (its own answer, not validation, a stub or a role check). Routes not
 * built yet say so exactly (501 NOT_IMPLEMENTED): when they are built, these rows must change.
 */
const AUTH_TABLE: {
  method: string;
  route: string;
  roles: string[];
  body?: (role: string) => unknown;
  ran: (res: Answer, role: string) => void;
}[] = [
  ...['restAction', 'restQuery', 'setLeaf'].map((name) => ({
    method: 'POST',
    route: `/orch_manager/${name}/nso1`,
    roles: ['admin'],
    body: () =>
      name === 'restAction'
        ? { params: { path: '/api', accept: 'application/yang-data+json' }, body: {} }
        : name === 'restQuery'
          ? { params: { path: '/api', accept: 'application/yang-data+json' } }
          : {
              path: '/ncs:devices/device{!dev!}/config',
              value: '!value!',
              variables: 'dev=r1\nvalue=1',
              set: true,
              dryRun: false,
              options: 'dryrun',
            },
    // the handler looked the adapter up: there is none by that name
    ran: (res: Answer) =>
      expect(res).toMatchObject({ status: 404, body: { code: 'ADAPTER_NOT_FOUND', message: expect.stringContaining('nso1') } }),
  })),
  {
    method: 'GET',
    route: '/operations-manager/jobs',
    roles: ['admin', 'engineering', 'apiread', 'operations'],
    ran: (res) => expect(res).toMatchObject({ status: 200, body: { items: expect.any(Array), total: expect.any(Number) } }),
  },
  {
    method: 'POST',
    route: '/operations-manager/automations',
    roles: ['admin', 'apiwrite', 'engineering'],
    body: (role) => ({ automation: { name: `matrix-automation-${role}` } }),
    ran: (res, role) => {
      expect(res.status).toBeLessThan(300);
      expect(JSON.stringify(res.body)).toContain(`matrix-automation-${role}`);
    },
  },
  {
    method: 'GET',
    route: '/health/adapters',
    roles: ['admin', 'apiread'],
    ran: (res) => expect(res).toMatchObject({ status: 200, body: { results: expect.any(Array), total: expect.any(Number) } }),
  },
  {
    method: 'POST',
    route: '/user-management/groups',
    roles: ['admin'],
    body: (role) => ({ group: { name: `matrix-group-${role}` } }),
    ran: (res, role) => expect(res).toMatchObject({ status: 200, body: { data: { name: `matrix-group-${role}` } } }),
  },
  {
    method: 'POST',
    route: '/gw/ssh/send_command',
    roles: ['admin'],
    body: () => ({
      sshSendCommandParameters: {
        host: 'no-such-device.invalid',
        commands: ['show version'],
        connection_options: { device_type: 'cisco_ios', username: 'netops', password: 'not-used', port: 1 },
      },
    }),
    // the handler looked the device up and tried it: an answer about the device, not about the request
    ran: (res) => expect(JSON.stringify(res.body)).toContain('no-such-device.invalid'),
  },
  {
    method: 'POST',
    route: '/configuration_manager/templates/search',
    roles: ['admin', 'apiread'],
    body: () => ({ name: '', options: {} }),
    ran: (res) => expect(res.status).toBe(200),
  },
  {
    method: 'POST',
    route: '/mop/createAnalyticTemplate',
    roles: ['admin', 'apiwrite'],
    body: (role) => ({ template: { name: `matrix-analytic-${role}` } }),
    ran: (res, role) => {
      expect(res.status).toBeLessThan(300);
      expect(JSON.stringify(res.body)).toContain(`matrix-analytic-${role}`);
    },
  },
  {
    method: 'POST',
    route: '/formbuilder/forms/export',
    roles: ['admin', 'apiread'],
    body: () => ({ options: { name: 'matrix-no-such-form' } }),
    ran: (res) => expect(res).toMatchObject({ status: 404, body: { code: 'FORM_NOT_FOUND' } }),
  },
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
    await platform.http('POST', '/user-management/accounts', {
      token: admin,
      body: { account: { username: `only-${role}`, password: 'password-123', groups: [groupId] } },
    });
    tokens.set(role, await platform.login(`only-${role}`, 'password-123'));
  }
  // an account without any group holds no role at all
  await platform.http('POST', '/user-management/accounts', {
    token: admin,
    body: { account: { username: 'no-role', password: 'password-123' } },
  });
  tokens.set('none', await platform.login('no-role', 'password-123'));
});

afterAll(async () => {
  await platform.stop();
});

const cases = AUTH_TABLE.flatMap((row) =>
  [...ROLES, 'none'].map((role) => [row.method, row.route, role, row.roles.includes(role), row] as const),
);

it.each(cases)('%s %s as %s: allowed=%s', async (method, route, role, allowed, row) => {
  const body = row.body?.(role) ?? (method === 'GET' ? undefined : {});
  const res = await platform.http(method, route, { token: tokens.get(role) ?? '', ...(body === undefined ? {} : { body }) });
  if (allowed) {
    row.ran(res, role);
  } else {
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ status: 'error', code: 'FORBIDDEN' });
  }
});
