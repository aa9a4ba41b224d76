import { eventually } from '@nap/testing';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';

let platform: TestPlatform;
let admin: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  admin = await platform.login();
});

afterAll(async () => {
  await platform.stop();
});

type Group = { _id: string; name: string; roles: string[] };
type Account = { _id: string; username: string; groups: string[]; roles: string[] };

async function createGroup(name: string, roles: string[] = []): Promise<Group> {
  const res = await platform.http('POST', '/user-management/groups', { token: admin, body: { group: { name } } });
  expect(res.status).toBe(200);
  const group = (res.body as { data: Group }).data;
  if (roles.length)
    expect((await platform.http('PUT', `/user-management/groups/${group._id}/roles`, { token: admin, body: { roles } })).status).toBe(200);
  return group;
}

async function createAccount(username: string, groups: string[] = []): Promise<Account> {
  const res = await platform.http('POST', '/user-management/accounts', {
    token: admin,
    body: { account: { username, password: 'password-123', firstname: 'Net', lastname: 'Ops', email: `${username}@example.net`, groups } },
  });
  expect(res.status).toBe(200);
  return (res.body as { data: Account }).data;
}

describe('groups', () => {
  it('creates a group as operation 10 says and refuses a duplicate name with 409', async () => {
    const res = await platform.http('POST', '/user-management/groups', { token: admin, body: { group: { name: 'netops' } } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'Created',
      message: expect.any(String),
      data: { _id: expect.any(String), name: 'netops', roles: [] },
    });
    const dup = await platform.http('POST', '/user-management/groups', { token: admin, body: { group: { name: 'netops' } } });
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ code: 'GROUP_ALREADY_EXISTS', message: expect.stringContaining('netops') });
  });

  it('refuses a name that is only whitespace, holds a control character, has whitespace at an end or is too long, naming it', async () => {
    const refused: [string, string][] = [
      ['   ', 'is only whitespace'],
      ['a\u0000b', 'control character U+0000 at position 2'],
      ['net\nops', 'control character U+000A'],
      [' netops ', 'begins or ends with whitespace'],
      ['a'.repeat(257), 'must NOT have more than 256 characters'],
      // "équipe" with "e" and a combining accent: read alike as the composed one, and never found by its spelling
      ['e\u0301quipe', 'give it as "\u00e9quipe" (Unicode NFC)'],
    ];
    for (const [name, why] of refused) {
      const res = await platform.http('POST', '/user-management/groups', { token: admin, body: { group: { name } } });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [{ member: 'body.group.name', message: expect.stringContaining(why) }],
      });
    }
    expect(
      (await platform.http('POST', '/user-management/groups', { token: admin, body: { group: { name: 'b'.repeat(256) } } })).status,
    ).toBe(200);
    const names = ((await platform.http('GET', '/user-management/groups', { token: admin })).body as { results: Group[] }).results.map(
      (g) => g.name,
    );
    expect(names.filter((n) => n.trim() === '' || n.includes('\u0000') || n.length > 256)).toEqual([]);
  });

  it('refuses a name that differs from an existing one only in letter case, naming the existing group', async () => {
    await createGroup('Field-Ops');
    for (const name of ['field-ops', 'FIELD-OPS']) {
      const res = await platform.http('POST', '/user-management/groups', { token: admin, body: { group: { name } } });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ code: 'GROUP_ALREADY_EXISTS', message: expect.stringContaining('"Field-Ops"') });
    }
    // a name that only looks like a pattern is matched as text
    expect((await platform.http('POST', '/user-management/groups', { token: admin, body: { group: { name: 'Field.Ops' } } })).status).toBe(
      200,
    );
  });

  it('gets, lists, sets roles and deletes', async () => {
    const group = await createGroup('readers');
    const roles = await platform.http('PUT', `/user-management/groups/${group._id}/roles`, {
      token: admin,
      body: { roles: ['apiread', 'operations'] },
    });
    expect(roles.body).toMatchObject({ roles: ['apiread', 'operations'] });
    expect(
      (await platform.http('PUT', `/user-management/groups/${group._id}/roles`, { token: admin, body: { roles: ['superuser'] } })).status,
    ).toBe(400);
    expect((await platform.http('GET', `/user-management/groups/${group._id}`, { token: admin })).body).toMatchObject({ name: 'readers' });
    const list = await platform.http('GET', '/user-management/groups', { token: admin });
    expect((list.body as { results: Group[] }).results.map((g) => g.name)).toEqual(expect.arrayContaining(['admins', 'readers']));
    expect((await platform.http('DELETE', `/user-management/groups/${group._id}`, { token: admin })).status).toBe(200);
    expect((await platform.http('GET', `/user-management/groups/${group._id}`, { token: admin })).status).toBe(404);
  });

  it('lists the assignable roles with a description each', async () => {
    const res = await platform.http('GET', '/user-management/roles', { token: admin });
    const roles = (res.body as { results: { name: string; description: string }[] }).results;
    expect(roles.map((r) => r.name).sort()).toEqual(['admin', 'apiread', 'apiwrite', 'auditor', 'engineering', 'operations']);
    for (const role of roles) expect(role.description.length).toBeGreaterThan(5);
  });
});

describe('accounts', () => {
  it('creates an account whose roles are the union of its groups, never returning the password', async () => {
    const a = await createGroup('union-a', ['apiread']);
    const b = await createGroup('union-b', ['apiwrite', 'apiread']);
    const account = await createAccount('union-user', [a._id, b._id]);
    expect(account.roles).toEqual(['apiread', 'apiwrite']);
    const fetched = await platform.http('GET', `/user-management/accounts/${account._id}`, { token: admin });
    expect(fetched.body).toMatchObject({ username: 'union-user', email: 'union-user@example.net', groups: [a._id, b._id] });
    expect(JSON.stringify(fetched.body)).not.toMatch(/password/i);
    const list = await platform.http('GET', '/user-management/accounts', { token: admin });
    expect(JSON.stringify(list.body)).not.toMatch(/password|scrypt/i);
    const dup = await platform.http('POST', '/user-management/accounts', {
      token: admin,
      body: { account: { username: 'union-user', password: 'password-123' } },
    });
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ code: 'ACCOUNT_ALREADY_EXISTS' });
  });

  it('refuses a username that is only whitespace, has whitespace at an end or is too long, as group names are, and writes nothing', async () => {
    const refused: [string, string][] = [
      ['   ', 'is only whitespace'],
      ['admin ', 'begins or ends with whitespace; give it as "admin"'],
      ['\u00a0netops', 'begins or ends with whitespace'],
      ['u'.repeat(257), 'is 257 characters long; a username has at most 256'],
      ['Zu\u0308rich', 'give it as "Z\u00fcrich" (Unicode NFC)'],
    ];
    for (const [username, why] of refused) {
      const res = await platform.http('POST', '/user-management/accounts', {
        token: admin,
        body: { account: { username, password: 'password-123' } },
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [{ member: 'body.account.username', message: expect.stringContaining(why) }],
      });
    }
    const usernames = (
      (await platform.http('GET', '/user-management/accounts', { token: admin })).body as { results: Account[] }
    ).results.map((a) => a.username);
    expect(usernames.filter((u) => u.trim() !== u || u.length > 256)).toEqual([]);
    // inner spaces and any script are a username still
    expect((await createAccount('Net Ops Zürich')).username).toBe('Net Ops Zürich');
    expect((await createAccount('v'.repeat(256))).username).toHaveLength(256);
  });

  it('refuses groups that do not exist, naming them, and writes nothing', async () => {
    const res = await platform.http('POST', '/user-management/accounts', {
      token: admin,
      body: { account: { username: 'ghost', password: 'password-123', groups: ['no-such-group'] } },
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('no-such-group');
    const list = await platform.http('GET', '/user-management/accounts', { token: admin });
    expect(JSON.stringify(list.body)).not.toContain('ghost');
  });

  it('updates an account with PATCH /authorization/accounts/:accountId', async () => {
    const account = await createAccount('patch-me');
    const res = await platform.http('PATCH', `/authorization/accounts/${account._id}`, { token: admin, body: { firstname: 'Changed' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ firstname: 'Changed', lastname: 'Ops' });
    expect((await platform.http('PATCH', '/authorization/accounts/nope', { token: admin, body: { firstname: 'x' } })).status).toBe(404);
  });

  it('will not leave the platform without an administrator', async () => {
    const whoami = await platform.http('GET', '/whoami', { token: admin });
    const adminId = (whoami.body as { _id: string })._id;
    const res = await platform.http('PUT', `/user-management/accounts/${adminId}/groups`, { token: admin, body: { groups: [] } });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'ACCOUNT_PROTECTED' });
  });
});

describe('revocation', () => {
  it('takes group, role, password changes and deletion into account at the next request', async () => {
    const group = await createGroup('revocable', ['apiread']);
    const account = await createAccount('revocable-user', [group._id]);
    const token = await platform.login('revocable-user', 'password-123');
    expect((await platform.http('GET', '/user-management/roles', { token })).status).toBe(403);
    expect((await platform.http('GET', '/operations-manager/jobs', { token })).status).not.toBe(403);

    // the group loses its role: the same token no longer reads jobs
    await platform.http('PUT', `/user-management/groups/${group._id}/roles`, { token: admin, body: { roles: [] } });
    await eventually(
      'the jobs refused once the group lost its role',
      async () => (await statusOf('/operations-manager/jobs', token)) === 403,
      WITHIN_A_SECOND,
    );

    // the account is put in an admin group: the same token administers
    const admins = ((await platform.http('GET', '/user-management/groups', { token: admin })).body as { results: Group[] }).results.find(
      (g) => g.name === 'admins',
    );
    await platform.http('PUT', `/user-management/accounts/${account._id}/groups`, { token: admin, body: { groups: [admins?._id] } });
    await eventually(
      'the roles answered once the account is an admin',
      async () => (await statusOf('/user-management/roles', token)) === 200,
      WITHIN_A_SECOND,
    );

    // a new password ends every session
    const res = await platform.http('PUT', `/user-management/accounts/${account._id}/password`, {
      token: admin,
      body: { password: 'new-password-456' },
    });
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).not.toContain('new-password-456');
    await eventually('the session ended by the new password', async () => (await statusOf('/whoami', token)) === 401, WITHIN_A_SECOND);
    const fresh = await platform.login('revocable-user', 'new-password-456');

    // deletion ends it too
    expect((await platform.http('DELETE', `/user-management/accounts/${account._id}`, { token: admin })).status).toBe(200);
    await eventually('the session ended by the deletion', async () => (await statusOf('/whoami', fresh)) === 401, WITHIN_A_SECOND);
    expect((await platform.http('GET', `/user-management/accounts/${account._id}`, { token: admin })).status).toBe(404);
  });
});

/** Revocation reaches every gateway replica within a second. */
const WITHIN_A_SECOND = { timeoutMs: 1_000 };

async function statusOf(route: string, token: string): Promise<number> {
  return (await platform.http('GET', route, { token })).status;
}
