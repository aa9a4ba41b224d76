import { CATALOG } from '@nap/contracts';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { eventually } from '@nap/testing';

/**
 * Custom roles: an administrator defines a role of methods `{ provenance, name }` (the application
 * and the operation, as GET /authorization/methods lists them), gives it to a group, and the
 * group's members may call exactly those operations, checked by the gateway like the built-in
 * roles; a role a group is given is not deleted; names and methods are checked; changes are
 * audited. That changes reach every gateway over the bus is tested with a real nats-server in
 * test/e2e/distributed.test.ts, beside the other cases of two gateways.
 */

type Role = { _id: string; name: string; provenance: string; builtIn: boolean; allowedMethods: { name: string; provenance: string }[] };
type Failure = { code: string; message: string; details?: { member: string; message: string }[] };

const getJobs = { provenance: 'OperationsManager', name: 'getJobs' };
const getGroups = { provenance: 'AdminEssentials', name: 'getAuthorizationGroups' };
const getAdapters = { provenance: 'AdminEssentials', name: 'getAdapters' };

describe('custom roles on one platform', () => {
  let platform: TestPlatform;
  let admin: string;
  let bob: string;
  let role: Role;
  let groupId: string;

  const call = (method: string, route: string, token: string, body?: unknown) =>
    platform.http(method, route, { token, ...(body !== undefined ? { body } : {}) });

  beforeAll(async () => {
    platform = await startTestPlatform();
    admin = await platform.login();
    const created = await call('POST', '/authorization/roles', admin, {
      role: { name: 'job-readers', description: 'reads jobs', allowedMethods: [getJobs], allowedViews: [] },
    });
    expect(created.status).toBe(200);
    role = (created.body as { data: Role }).data;
    const group = await call('POST', '/user-management/groups', admin, {
      group: { name: 'readers', assignedRoles: [{ roleId: role._id }] },
    });
    expect(group.status).toBe(200);
    groupId = (group.body as { data: { _id: string } }).data._id;
    const account = await call('POST', '/user-management/accounts', admin, {
      account: { username: 'bob', password: 'bob-password-12345', groups: [groupId] },
    });
    expect(account.status).toBe(200);
    bob = await platform.login('bob', 'bob-password-12345');
  }, 60_000);

  afterAll(async () => {
    await platform?.stop();
  });

  it('lets the members of a group given the role call exactly its operations', async () => {
    // whoami says what the role allows, so that the console offers it
    expect((await call('GET', '/whoami', bob)).body).toMatchObject({ username: 'bob', roles: [], operations: ['workflow.getJobs'] });
    expect((await call('GET', '/whoami', admin)).body).not.toHaveProperty('operations');
    expect((await call('GET', '/operations-manager/jobs', bob)).status).toBe(200);
    // what every built-in reading role may call, and what the role does not name, stay refused
    for (const [method, route] of [
      ['GET', '/operations-manager/automations'],
      ['GET', '/automation-studio/workflows'],
      ['GET', '/authorization/groups'],
      ['GET', '/authorization/roles'],
      ['POST', '/operations-manager/jobs/cancel'],
    ] as const) {
      const res = await call(method, route, bob, method === 'POST' ? { jobIds: [] } : undefined);
      expect({ route, status: res.status }).toEqual({ route, status: 403 });
    }
  });

  it('gives what a changed role allows at the next request, and takes back what it no longer allows', async () => {
    const updated = await call('PUT', `/authorization/roles/${role._id}`, admin, { role: { allowedMethods: [getJobs, getGroups] } });
    expect(updated).toMatchObject({ status: 200, body: { allowedMethods: [getJobs, getGroups] } });
    await eventually('bob may list groups', async () => (await call('GET', '/authorization/groups', bob)).status === 200, {
      timeoutMs: 10_000,
    });
    expect((await call('PUT', `/authorization/roles/${role._id}`, admin, { role: { allowedMethods: [getGroups] } })).status).toBe(200);
    await eventually('bob may no longer list jobs', async () => (await call('GET', '/operations-manager/jobs', bob)).status === 403, {
      timeoutMs: 10_000,
    });
    expect((await call('GET', '/authorization/groups', bob)).status).toBe(200);
  });

  it('takes the role with the group: PUT …/assigned-roles', async () => {
    expect((await call('PUT', `/user-management/groups/${groupId}/assigned-roles`, admin, { assignedRoles: [] })).status).toBe(200);
    await eventually('bob may no longer list groups', async () => (await call('GET', '/authorization/groups', bob)).status === 403, {
      timeoutMs: 10_000,
    });
    const given = await call('PUT', `/user-management/groups/${groupId}/assigned-roles`, admin, { assignedRoles: [{ roleId: role._id }] });
    expect(given).toMatchObject({ status: 200, body: { assignedRoles: [{ roleId: role._id }] } });
    await eventually('bob may list groups again', async () => (await call('GET', '/authorization/groups', bob)).status === 200, {
      timeoutMs: 10_000,
    });
    const unknown = await call('PUT', `/user-management/groups/${groupId}/assigned-roles`, admin, {
      assignedRoles: [{ roleId: 'nosuch' }],
    });
    expect(unknown).toMatchObject({ status: 400, body: { details: [{ member: 'body.assignedRoles[0].roleId' }] } });
  });

  it('refuses to delete a role a group is given, naming the groups (409 ROLE_IN_USE)', async () => {
    const refused = await call('DELETE', `/authorization/roles/${role._id}`, admin);
    expect(refused).toMatchObject({ status: 409, body: { code: 'ROLE_IN_USE', message: expect.stringContaining('"readers"') } });
    expect((await call('GET', `/authorization/roles/${role._id}`, admin)).status).toBe(200);
  });

  it('lists the built-in roles read-only beside the custom ones', async () => {
    const list = (await call('GET', '/authorization/roles', admin)).body as { results: Role[]; total: number };
    expect(list.results.map((r) => [r.name, r.provenance, r.builtIn])).toEqual([
      ['admin', 'NAP', true],
      ['engineering', 'NAP', true],
      ['operations', 'NAP', true],
      ['apiread', 'NAP', true],
      ['apiwrite', 'NAP', true],
      ['auditor', 'NAP', true],
      ['job-readers', 'Custom', false],
    ]);
    expect(list.total).toBe(7);
    // a built-in role allows what the catalog gives it, each operation once
    const auditor = (await call('GET', '/authorization/roles/auditor', admin)).body as Role;
    const expected = CATALOG.filter((op) => op.http !== undefined && op.roles.includes('auditor') && op.auth !== 'caller').map(
      (op) => op.name,
    );
    expect(auditor.allowedMethods.map((m) => m.name).sort()).toEqual(expected.sort());
    expect(auditor.allowedMethods.every((m) => m.provenance === 'AdminEssentials')).toBe(true);
    for (const [method, body] of [
      ['DELETE', undefined],
      ['PUT', { role: { description: 'mine now' } }],
    ] as const) {
      expect(await call(method, '/authorization/roles/admin', admin, body)).toMatchObject({ status: 409, body: { code: 'ROLE_BUILT_IN' } });
    }
    expect((await call('GET', '/authorization/roles/nosuch', admin)).status).toBe(404);
  });

  it('checks names, provenance and methods, naming the member', async () => {
    const make = async (role: Record<string, unknown>) => (await call('POST', '/authorization/roles', admin, { role })).body as Failure;
    expect(await make({ name: '  ' })).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ member: 'body.role.name' }] });
    expect(await make({ name: ' padded' })).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ member: 'body.role.name' }] });
    expect(await make({ name: 'bell\u0007' })).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(await make({ name: 'Admin' })).toMatchObject({ code: 'ROLE_ALREADY_EXISTS' });
    expect(await make({ name: 'JOB-READERS' })).toMatchObject({
      code: 'ROLE_ALREADY_EXISTS',
      message: expect.stringContaining('"job-readers"'),
    });
    expect(await make({ name: 'x', provenance: 'NAP' })).toMatchObject({ details: [{ member: 'body.role.provenance' }] });
    expect(await make({ name: 'x', allowedMethods: [getJobs, { provenance: 'Nowhere', name: 'getJobs' }] })).toMatchObject({
      details: [{ member: 'body.role.allowedMethods[1]' }],
    });
    // the application is one of NAP's, but the operation is another application's, public, or any caller's
    for (const method of [
      { provenance: 'WorkFlowEngine', name: 'getJobs' },
      { provenance: 'AdminEssentials', name: 'login' },
      { provenance: 'AdminEssentials', name: 'whoami' },
    ]) {
      expect(await make({ name: 'x', allowedMethods: [method] })).toMatchObject({ details: [{ member: 'body.role.allowedMethods[0]' }] });
    }
    expect(await make({ name: 'x', allowedMethods: [{ name: 'getJobs' }] })).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(await make({ name: 'x', members: [] })).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect((await call('GET', '/authorization/roles', admin)).body).toMatchObject({ total: 7 });
  });

  it('lets only an administrator manage roles', async () => {
    expect((await call('POST', '/authorization/roles', bob, { role: { name: 'mine', allowedMethods: [getJobs] } })).status).toBe(403);
    expect((await call('GET', '/authorization/methods', bob)).status).toBe(403);
  });

  it('audits the creation, the change and the deletion of a role', async () => {
    const created = await call('POST', '/authorization/roles', admin, { role: { name: 'audited', allowedMethods: [getJobs] } });
    const id = (created.body as { data: Role }).data._id;
    expect(await platform.auditRecordOf(created, admin)).toMatchObject({
      operation: 'admin.createRole',
      target: { kind: 'role', name: 'audited' },
      outcome: { status: 200 },
    });
    const changed = await call('PUT', `/authorization/roles/${id}`, admin, { role: { allowedMethods: [getAdapters] } });
    expect(await platform.auditRecordOf(changed, admin)).toMatchObject({
      operation: 'admin.updateRole',
      target: { kind: 'role', id, name: 'audited' },
      changes: expect.arrayContaining([expect.objectContaining({ member: 'allowedMethods' })]),
    });
    const deleted = await call('DELETE', `/authorization/roles/${id}`, admin);
    expect(deleted.status).toBe(200);
    expect(await platform.auditRecordOf(deleted, admin)).toMatchObject({ operation: 'admin.deleteRole', target: { kind: 'role', id } });
    expect((await call('DELETE', `/authorization/roles/${id}`, admin)).status).toBe(404);
  });
});
