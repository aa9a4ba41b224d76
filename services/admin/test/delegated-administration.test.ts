import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';

/**
 * Delegated administration: a help desk whose custom role allows managing accounts, groups and
 * roles manages them within what it may do itself. It gives no one more than it may do (no admin
 * role, no built-in or custom role beyond its own methods, by a group an account joins or a role it
 * writes), changes no account or group that may do more than it (an administrator's password, the
 * `admins` group), and changes no profile. Within those bounds its work goes through.
 */

type Failure = { code: string; message: string };
const m = (provenance: string, name: string) => ({ provenance, name });

/** What the help desk may call: account and group care, roles, profiles, and reading jobs. */
const HELP_DESK_METHODS = [
  m('AdminEssentials', 'createAccount'),
  m('AdminEssentials', 'getAccounts'),
  m('AdminEssentials', 'updateAccount'),
  m('AdminEssentials', 'deleteAccount'),
  m('AdminEssentials', 'setAccountGroups'),
  m('AdminEssentials', 'setAccountPassword'),
  m('AdminEssentials', 'endAccountSessions'),
  m('AdminEssentials', 'unlockAccount'),
  m('AdminEssentials', 'createGroup'),
  m('AdminEssentials', 'deleteGroup'),
  m('AdminEssentials', 'setGroupRoles'),
  m('AdminEssentials', 'setGroupAssignedRoles'),
  m('AdminEssentials', 'createRole'),
  m('AdminEssentials', 'updateRole'),
  m('AdminEssentials', 'createProfile'),
  m('AdminEssentials', 'switchActiveProfile'),
  m('OperationsManager', 'getJobs'),
];

describe('delegated administration', () => {
  let platform: TestPlatform;
  let admin: string;
  let desk: string;
  let adminId: string;
  let adminsGroup: string;
  let deskGroup: string;
  let readersRole: string;
  let cancelRole: string;

  const call = (method: string, route: string, token: string, body?: unknown) =>
    platform.http(method, route, { token, ...(body !== undefined ? { body } : {}) });
  const data = <T>(res: { body: unknown }) => (res.body as { data: T }).data;
  const refused = async (res: Promise<{ status: number; body: unknown }>, says: RegExp) => {
    const answer = await res;
    expect({ status: answer.status, code: (answer.body as Failure).code }).toEqual({ status: 403, code: 'ESCALATION_REFUSED' });
    expect((answer.body as Failure).message).toMatch(says);
  };

  beforeAll(async () => {
    platform = await startTestPlatform();
    admin = await platform.login();
    const who = (await call('GET', '/whoami', admin)).body as { _id?: string; id?: string; groups?: string[] };
    const accounts = (await call('GET', '/user-management/accounts?equals[username]=admin', admin)).body as {
      results: { _id: string; groups: string[] }[];
    };
    adminId = accounts.results[0]?._id ?? who._id ?? '';
    adminsGroup = accounts.results[0]?.groups[0] ?? '';
    const deskRole = data<{ _id: string }>(
      await call('POST', '/authorization/roles', admin, { role: { name: 'help-desk', allowedMethods: HELP_DESK_METHODS } }),
    );
    readersRole = data<{ _id: string }>(
      await call('POST', '/authorization/roles', admin, {
        role: { name: 'job-readers', allowedMethods: [m('OperationsManager', 'getJobs')] },
      }),
    )._id;
    cancelRole = data<{ _id: string }>(
      await call('POST', '/authorization/roles', admin, {
        role: { name: 'job-cancellers', allowedMethods: [m('OperationsManager', 'cancelJobs')] },
      }),
    )._id;
    deskGroup = data<{ _id: string }>(
      await call('POST', '/user-management/groups', admin, { group: { name: 'desk', assignedRoles: [{ roleId: deskRole._id }] } }),
    )._id;
    const created = await call('POST', '/user-management/accounts', admin, {
      account: { username: 'desk-ana', password: 'desk-ana-password-1', groups: [deskGroup] },
    });
    expect(created.status).toBe(200);
    desk = await platform.login('desk-ana', 'desk-ana-password-1');
  }, 60_000);

  afterAll(async () => {
    await platform?.stop();
  });

  it('does not put anyone, itself included, in a group that gives the admin role or more than it may do', async () => {
    const me = (await call('GET', '/user-management/accounts?equals[username]=desk-ana', admin)).body as { results: { _id: string }[] };
    const myId = me.results[0]?._id as string;
    await refused(call('PUT', `/user-management/accounts/${myId}/groups`, desk, { groups: [deskGroup, adminsGroup] }), /the admin role/);
    const engineers = data<{ _id: string }>(
      await call('POST', '/user-management/groups', admin, { group: { name: 'engineers', roles: ['engineering'] } }),
    );
    await refused(
      call('PUT', `/user-management/accounts/${myId}/groups`, desk, { groups: [deskGroup, engineers._id] }),
      /Group "engineers" gives/,
    );
    await refused(
      call('POST', '/user-management/accounts', desk, {
        account: { username: 'desk-made', password: 'desk-made-password-1', groups: [adminsGroup] },
      }),
      /the admin role/,
    );
    // nothing was written: the account is in its own group alone, and no account was made
    const after = (await call('GET', '/user-management/accounts?equals[username]=desk-ana', admin)).body as {
      results: { groups: string[] }[];
    };
    expect(after.results[0]?.groups).toEqual([deskGroup]);
    expect(((await call('GET', '/user-management/accounts?equals[username]=desk-made', admin)).body as { total: number }).total).toBe(0);
  });

  it('does not change an administrator: password, groups, state, sessions, deletion', async () => {
    await refused(
      call('PUT', `/user-management/accounts/${adminId}/password`, desk, { password: 'taken-over-password-1' }),
      /Account "admin" may use the admin role/,
    );
    await refused(call('PUT', `/user-management/accounts/${adminId}/groups`, desk, { groups: [] }), /the admin role/);
    await refused(call('PATCH', `/authorization/accounts/${adminId}`, desk, { inactive: true }), /the admin role/);
    await refused(call('DELETE', `/user-management/accounts/${adminId}/sessions`, desk), /the admin role/);
    await refused(call('DELETE', `/user-management/accounts/${adminId}`, desk), /the admin role/);
    // the administrator's password is as it was
    expect(typeof (await platform.login())).toBe('string');
  });

  it('gives no group, and writes no role, beyond what it may do', async () => {
    await refused(call('PUT', `/user-management/groups/${deskGroup}/roles`, desk, { roles: ['admin'] }), /the admin role/);
    await refused(
      call('PUT', `/user-management/groups/${deskGroup}/roles`, desk, { roles: ['operations'] }),
      /which desk-ana may not use itself/,
    );
    await refused(
      call('PUT', `/user-management/groups/${deskGroup}/assigned-roles`, desk, { assignedRoles: [{ roleId: cancelRole }] }),
      /OperationsManager cancelJobs/,
    );
    await refused(
      call('POST', '/user-management/groups', desk, { group: { name: 'cancellers', assignedRoles: [{ roleId: cancelRole }] } }),
      /Group "cancellers" would give OperationsManager cancelJobs/,
    );
    await refused(
      call('POST', '/authorization/roles', desk, { role: { name: 'wide', allowedMethods: [m('OperationsManager', 'cancelJobs')] } }),
      /Role "wide" would allow OperationsManager cancelJobs/,
    );
    await refused(
      call('PUT', `/authorization/roles/${readersRole}`, desk, { role: { allowedMethods: [m('OperationsManager', 'cancelJobs')] } }),
      /would allow/,
    );
    await refused(
      call('PUT', `/authorization/roles/${cancelRole}`, desk, { role: { description: 'renamed by the desk' } }),
      /Role "job-cancellers" allows/,
    );
    await refused(call('DELETE', `/user-management/groups/${adminsGroup}`, desk), /Group "admins" gives the admin role/);
  });

  it('changes no profile', async () => {
    await refused(call('PUT', '/profiles/profile1/active', desk), /Changing profiles/);
    await refused(call('POST', '/profiles', desk, { properties: { id: 'desk-profile' } }), /Changing profiles/);
  });

  it('does its work within what it may do', async () => {
    const readers = await call('POST', '/user-management/groups', desk, {
      group: { name: 'readers', assignedRoles: [{ roleId: readersRole }] },
    });
    expect(readers.status).toBe(200);
    const readersId = data<{ _id: string }>(readers)._id;
    const made = await call('POST', '/user-management/accounts', desk, {
      account: { username: 'reader-bo', password: 'reader-bo-password-1', groups: [readersId] },
    });
    expect(made.status).toBe(200);
    const boId = data<{ _id: string }>(made)._id;
    expect((await call('PUT', `/user-management/accounts/${boId}/password`, desk, { password: 'reader-bo-password-2' })).status).toBe(200);
    expect((await call('PUT', `/user-management/accounts/${boId}/groups`, desk, { groups: [] })).status).toBe(200);
    const role = await call('POST', '/authorization/roles', desk, {
      role: { name: 'desk-readers', allowedMethods: [m('OperationsManager', 'getJobs')] },
    });
    expect(role.status).toBe(200);
    expect((await call('DELETE', `/user-management/groups/${readersId}`, desk)).status).toBe(200);
    // an administrator is refused none of it
    expect(
      (await call('PUT', `/user-management/groups/${deskGroup}/assigned-roles`, admin, { assignedRoles: [{ roleId: cancelRole }] })).status,
    ).toBe(200);
  });
});
