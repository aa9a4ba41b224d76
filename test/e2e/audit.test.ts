import type { AuditRecord, AuditVerification } from '@nap/contracts';
import { SECRET_MASK, auditRecordHash } from '@nap/contracts';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { eventually, workflowDocument } from '@nap/testing';
import { createAutomation, greetWorkflow, waitForJob, waitingTask } from '../support/automation';

/**
 * The audit trail through HTTP, standalone: every change (any credentials), login, logout, failed
 * login and refusal is recorded before its answer, with who, how, from where and what changed
 * (secrets masked); reads are not; the chain verifies, and a record changed in the store breaks it
 * at that record; the export streams NDJSON; only admin and auditor read it.
 */
let platform: TestPlatform;
let admin: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  admin = await platform.login();
}, 60_000);

afterAll(async () => {
  await platform?.stop();
});

async function records(query: string, token = admin): Promise<AuditRecord[]> {
  const res = await platform.http('GET', `/audit?${query}`, { token });
  if (res.status !== 200) throw new Error(`GET /audit?${query}: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as { results: AuditRecord[] }).results;
}

/** The one record of a request, by the request id the gateway answered. */
async function recordOf(res: { headers: Headers }): Promise<AuditRecord> {
  const requestId = res.headers.get('x-request-id') ?? '';
  const found = await records(`equals[requestId]=${encodeURIComponent(requestId)}`);
  if (found.length !== 1) throw new Error(`${found.length} records for request ${requestId}`);
  return found[0] as AuditRecord;
}

function basic(username: string, password: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` };
}

it('records a change with who, how, where and what changed, before answering it', async () => {
  const created = await platform.http('POST', '/user-management/groups', {
    token: admin,
    body: { group: { name: 'audited', description: 'first' } },
    headers: { 'user-agent': 'audit-e2e/1.0' },
  });
  expect(created.status).toBe(200);
  const groupId = (created.body as { data: { _id: string } }).data._id;
  // no wait: the record is there when the answer is
  const record = await recordOf(created);
  expect(record).toMatchObject({
    operation: 'admin.createGroup',
    method: 'POST',
    route: '/user-management/groups',
    actor: { kind: 'account', username: 'admin', auth: 'bearer' },
    target: { kind: 'group', id: groupId, name: 'audited' },
    outcome: { status: 200 },
    source: { userAgent: 'audit-e2e/1.0' },
  });
  expect(record.actor.accountId).toEqual(expect.any(String));
  expect(record.source?.address).toMatch(/127\.0\.0\.1|::1/);
  expect(record.hash).toBe(auditRecordHash(record));

  const roles = await platform.http('PUT', `/user-management/groups/${groupId}/roles`, { token: admin, body: { roles: ['apiread'] } });
  expect(roles.status).toBe(200);
  expect((await recordOf(roles)).changes).toEqual([{ member: 'roles', before: [], after: ['apiread'] }]);
});

it('names an account it records by its username', async () => {
  const created = await platform.http('POST', '/user-management/accounts', {
    token: admin,
    body: { account: { username: 'audited-account', password: 'audited-password-1' } },
  });
  expect(created.status).toBe(200);
  const accountId = (created.body as { data: { _id: string } }).data._id;
  expect((await recordOf(created)).target).toEqual({ kind: 'account', id: accountId, name: 'audited-account' });
});

it('records through Basic, the cookie and ?token=, and leaves reads out', async () => {
  const viaBasic = await platform.http('POST', '/user-management/groups', {
    headers: basic('admin', 'admin-password-for-tests'),
    body: { group: { name: 'by-basic' } },
  });
  const viaQuery = await platform.http('POST', `/user-management/groups?token=${admin}`, { body: { group: { name: 'by-query' } } });
  const viaCookie = await platform.http('POST', '/user-management/groups', {
    headers: { cookie: `token=${admin}`, origin: new URL(platform.url).origin },
    body: { group: { name: 'by-cookie' } },
  });
  expect([viaBasic.status, viaQuery.status, viaCookie.status]).toEqual([200, 200, 200]);
  expect((await recordOf(viaBasic)).actor.auth).toBe('basic');
  expect((await recordOf(viaQuery)).actor.auth).toBe('query');
  expect((await recordOf(viaCookie)).actor.auth).toBe('cookie');

  const read = await platform.http('GET', '/user-management/groups', { token: admin });
  expect(read.status).toBe(200);
  expect(await records(`equals[requestId]=${read.headers.get('x-request-id')}`)).toEqual([]);
});

it('records logins, failed logins and logouts', async () => {
  const failed = await platform.http('POST', '/login', { body: { user: { username: 'admin', password: 'not-the-password' } } });
  expect(failed.status).toBe(401);
  expect(await recordOf(failed)).toMatchObject({
    operation: 'admin.login',
    actor: { kind: 'anonymous', username: 'admin', auth: 'password' },
    target: { kind: 'account', name: 'admin' },
    outcome: { status: 401, code: 'UNAUTHENTICATED' },
  });
  expect(JSON.stringify(await recordOf(failed))).not.toContain('not-the-password');

  // the client credentials grant names its account by client_id
  const failedGrant = await fetch(`${platform.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'admin', client_secret: 'not-the-secret' }).toString(),
  });
  expect(failedGrant.status).toBe(401);
  expect(await recordOf(failedGrant)).toMatchObject({
    operation: 'admin.oauthToken',
    actor: { kind: 'anonymous', username: 'admin', auth: 'oauth' },
    target: { kind: 'account', name: 'admin' },
    outcome: { status: 401 },
  });

  const login = await platform.http('POST', '/login', { body: { user: { username: 'admin', password: 'admin-password-for-tests' } } });
  expect(login.status).toBe(200);
  const loginRecord = await recordOf(login);
  expect(loginRecord).toMatchObject({ operation: 'admin.login', actor: { kind: 'account', username: 'admin', auth: 'password' } });
  expect(loginRecord.actor.accountId).toBe(loginRecord.target?.id);
  expect(JSON.stringify(loginRecord)).not.toContain(String(login.body));

  const logout = await platform.http('GET', '/logout', { token: String(login.body) });
  expect(logout.status).toBe(200);
  expect(await recordOf(logout)).toMatchObject({ operation: 'admin.logout', method: 'GET', target: { kind: 'session' } });
});

it('records refusals, reads included, and masks secrets in what changed', async () => {
  const group = await platform.http('POST', '/user-management/groups', {
    token: admin,
    body: { group: { name: 'readers', roles: ['apiread'] } },
  });
  const groupId = (group.body as { data: { _id: string } }).data._id;
  const account = await platform.http('POST', '/user-management/accounts', {
    token: admin,
    body: { account: { username: 'reader', password: 'reader-password-1', groups: [groupId] } },
  });
  expect(account.status).toBe(200);
  const accountId = (account.body as { data: { _id: string } }).data._id;
  const reader = await platform.login('reader', 'reader-password-1');

  const forbidden = await platform.http('GET', '/user-management/accounts', { token: reader });
  expect(forbidden.status).toBe(403);
  expect(await recordOf(forbidden)).toMatchObject({
    operation: 'admin.getAccounts',
    method: 'GET',
    actor: { username: 'reader', accountId },
    outcome: { status: 403, code: 'FORBIDDEN' },
  });
  const unauthenticated = await platform.http('GET', '/user-management/groups', { token: 'nap1.forged.token' });
  expect(unauthenticated.status).toBe(401);
  expect(await recordOf(unauthenticated)).toMatchObject({ actor: { kind: 'anonymous', auth: 'bearer' }, outcome: { status: 401 } });
  const crossSite = await platform.http('POST', '/user-management/groups', {
    headers: { cookie: `token=${admin}`, origin: 'http://evil.example' },
    body: { group: { name: 'evil' } },
  });
  expect(crossSite.status).toBe(403);
  expect(await recordOf(crossSite)).toMatchObject({ actor: { auth: 'cookie' }, outcome: { code: 'CROSS_SITE_REQUEST' } });
  // a wrong current password: refused, and recorded against the caller's own account
  const wrongCurrent = await platform.http('PUT', '/whoami/password', {
    token: reader,
    body: { currentPassword: 'not-the-password-1', newPassword: 'reader-password-2' },
  });
  expect(wrongCurrent.status).toBe(403);
  expect(await recordOf(wrongCurrent)).toMatchObject({
    operation: 'admin.changeMyPassword',
    target: { kind: 'account', id: accountId, name: 'reader' },
    outcome: { status: 403 },
  });

  const password = await platform.http('PUT', `/user-management/accounts/${accountId}/password`, {
    token: admin,
    body: { password: 'a-new-secret-password' },
  });
  expect(password.status).toBe(200);
  const changed = await recordOf(password);
  expect(changed.changes).toEqual([{ member: 'passwordHash', secret: true, before: SECRET_MASK, after: SECRET_MASK }]);
  expect(JSON.stringify(changed)).not.toContain('a-new-secret-password');
  expect(JSON.stringify(await records('limit=500'))).not.toMatch(/scrypt\$|a-new-secret-password|reader-password-[12]|not-the-password-1/);
});

it('answers GET /audit to admin and auditor only, filtered', async () => {
  const group = await platform.http('POST', '/user-management/groups', {
    token: admin,
    body: { group: { name: 'auditors', roles: ['auditor'] } },
  });
  const groupId = (group.body as { data: { _id: string } }).data._id;
  await platform.http('POST', '/user-management/accounts', {
    token: admin,
    body: { account: { username: 'auditor', password: 'auditor-password-1', groups: [groupId] } },
  });
  const auditor = await platform.login('auditor', 'auditor-password-1');
  expect((await platform.http('GET', '/audit', { token: auditor })).status).toBe(200);
  // the auditor reads the audit and nothing else
  expect((await platform.http('GET', '/user-management/groups', { token: auditor })).status).toBe(403);
  expect((await platform.http('POST', '/user-management/groups', { token: auditor, body: { group: { name: 'x' } } })).status).toBe(403);

  const byOperation = await records('operation=admin.createGroup');
  expect(byOperation.length).toBeGreaterThanOrEqual(5);
  expect(byOperation.every((r) => r.operation === 'admin.createGroup')).toBe(true);
  const refused = await records('outcome=403', auditor);
  expect(refused.length).toBeGreaterThanOrEqual(3);
  expect(refused.every((r) => r.outcome.status === 403)).toBe(true);
  const byActor = await records('actor=reader');
  expect(byActor.length).toBeGreaterThan(0);
  expect(byActor.every((r) => r.actor.username === 'reader')).toBe(true);
  const future = await records(`since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`);
  expect(future).toEqual([]);
  const bad = await platform.http('GET', '/audit?outcome=not%20a%20code', { token: admin });
  expect(bad.status).toBe(400);
});

it('answers one record by its seq, to admin and auditor only, and 404 for a seq not in the chain', async () => {
  const made = await platform.http('POST', '/user-management/groups', { token: admin, body: { group: { name: 'by-seq' } } });
  const listed = await recordOf(made);
  const one = await platform.http('GET', `/audit/${listed.seq}`, { token: admin });
  expect(one.status).toBe(200);
  expect(one.body).toEqual(listed);
  expect((one.body as AuditRecord).hash).toBe(auditRecordHash(one.body as AuditRecord));
  const auditor = await platform.login('auditor', 'auditor-password-1');
  expect((await platform.http('GET', `/audit/${listed.seq}`, { token: auditor })).body).toEqual(listed);

  // the reader's password is a-new-secret-password since the refusals' test
  const reader = await platform.login('reader', 'a-new-secret-password');
  expect((await platform.http('GET', `/audit/${listed.seq}`, { token: reader })).status).toBe(403);
  const beyond = await platform.http('GET', `/audit/${listed.seq + 1000}`, { token: admin });
  expect(beyond.status).toBe(404);
  expect(beyond.body).toMatchObject({ code: 'AUDIT_RECORD_NOT_FOUND' });
  for (const seq of ['0', '-1', 'abc', '1.5', '12345678901234567']) {
    const bad = await platform.http('GET', `/audit/${seq}`, { token: admin });
    expect([bad.status, JSON.stringify(bad.body)]).toEqual([400, expect.stringContaining('params.seq')]);
  }
  // the routes beside it are not taken for a seq
  expect((await platform.http('GET', '/audit/verify', { token: admin })).body).toMatchObject({ valid: true });
});

it('exports NDJSON, verifies the chain, and finds a record changed in the store', async () => {
  const exported = await fetch(`${platform.url}/audit/export`, { headers: { authorization: `Bearer ${admin}` } });
  expect(exported.status).toBe(200);
  expect(exported.headers.get('content-type')).toContain('application/x-ndjson');
  const lines = (await exported.text()).trim().split('\n');
  const exportedRecords = lines.map((l) => JSON.parse(l) as AuditRecord);
  expect(exportedRecords.map((r) => r.seq)).toEqual(exportedRecords.map((_, i) => i + 1));
  for (const [i, r] of exportedRecords.entries()) {
    expect(r.hash).toBe(auditRecordHash(r));
    if (i > 0) expect(r.prevHash).toBe(exportedRecords[i - 1]?.hash);
  }
  const resumed = await fetch(`${platform.url}/audit/export?afterSeq=${lines.length - 2}`, {
    headers: { authorization: `Bearer ${admin}` },
  });
  expect((await resumed.text()).trim().split('\n')).toHaveLength(2);

  const verified = await platform.http('GET', '/audit/verify', { token: admin });
  expect(verified.body).toMatchObject({ valid: true, firstBroken: null });
  expect((verified.body as AuditVerification).checked).toBeGreaterThanOrEqual(lines.length);

  // someone with access to the store changes who did something
  const store = platform.stores.get('admin');
  if (!store) throw new Error('no admin store');
  const victim = exportedRecords[3] as AuditRecord;
  await store.collection('audit_records').updateOne({ seq: victim.seq }, { $set: { 'actor.username': 'somebody-else' } });
  const broken = await platform.http('GET', '/audit/verify', { token: admin });
  expect(broken.body).toMatchObject({ valid: false, firstBroken: victim.seq });

  // a record gone from the store (as retention removes the oldest) is not found, and not taken for the next one
  await store.collection('audit_records').deleteOne({ seq: 1 });
  const gone = await platform.http('GET', '/audit/1', { token: admin });
  expect([gone.status, (gone.body as { code?: string }).code]).toEqual([404, 'AUDIT_RECORD_NOT_FOUND']);
  expect((await platform.http('GET', '/audit/2', { token: admin })).body).toMatchObject({ seq: 2 });
});

it('records the job a start created, by both start routes', async () => {
  await createAutomation(platform, admin, greetWorkflow('audited-start'));
  const withOptions = await platform.http('POST', '/workflow_engine/startJobWithOptions/audited-start', {
    token: admin,
    body: { options: { variables: { who: 'audit' } } },
  });
  expect(withOptions.status).toBe(200);
  const started = withOptions.body as { _id: string };
  expect(await recordOf(withOptions)).toMatchObject({
    operation: 'workflow.startJobWithOptions',
    target: { kind: 'job', id: started._id, name: 'audited-start' },
  });
  const plain = await platform.http('POST', '/operations-manager/jobs/start', {
    token: admin,
    body: { workflow: 'audited-start', options: { variables: { who: 'audit' } } },
  });
  expect(plain.status).toBe(200);
  expect(await recordOf(plain)).toMatchObject({
    operation: 'workflow.startJob',
    target: { kind: 'job', id: (plain.body as { data: { _id: string } }).data._id, name: 'audited-start' },
  });
  // refused: no job was made, and the record names the workflow the caller asked for
  const refused = await platform.http('POST', '/operations-manager/jobs/start', {
    token: admin,
    body: { workflow: 'audited-start-missing', options: {} },
  });
  expect(refused.status).toBe(404);
  expect(await recordOf(refused)).toMatchObject({
    operation: 'workflow.startJob',
    target: { kind: 'job', name: 'audited-start-missing' },
    outcome: { status: 404 },
  });
});

it('names the device a command went to, and leaves out a read the spec routes as POST', async () => {
  const sent = await platform.http('POST', '/gw/sshSendCommandExec', {
    token: admin,
    body: { host: 'audited-router-9', command_string: 'show version' },
  });
  expect(sent.status).toBeGreaterThanOrEqual(400);
  expect(await recordOf(sent)).toMatchObject({
    operation: 'gateway-devices.sshSendCommandExec',
    target: { kind: 'device', name: 'audited-router-9' },
    outcome: { status: sent.status },
  });
  // found by the device's name, as its other records are
  expect((await records('equals[target.name]=audited-router-9')).map((r) => r.operation)).toEqual(['gateway-devices.sshSendCommandExec']);

  const listed = await platform.http('POST', '/gw/getInventoryDevices', { token: admin, body: {} });
  expect(listed.status).toBe(200);
  const requestId = listed.headers.get('x-request-id') ?? '';
  expect(await records(`equals[requestId]=${encodeURIComponent(requestId)}`)).toEqual([]);
});

it('records a run on several devices once more per device, each found by the name of its device', async () => {
  const template = await platform.http('POST', '/mop/createTemplate', {
    token: admin,
    body: { mop: { name: 'audited-run', os: 'ios', passRule: true, commands: [{ command: 'show clock', passRule: true, rules: [] }] } },
  });
  expect(template.status).toBe(200);
  const run = await platform.http('POST', '/mop/RunCommandTemplate', {
    token: admin,
    body: { template: 'audited-run', devices: ['audited-edge-1', 'audited-edge-2', 'audited-edge-1'] },
  });
  const requestId = run.headers.get('x-request-id') ?? '';
  const recorded = await records(`equals[requestId]=${encodeURIComponent(requestId)}`);
  expect(recorded.map((r) => ({ operation: r.operation, target: r.target, status: r.outcome.status }))).toEqual(
    expect.arrayContaining([
      { operation: 'mop.RunCommandTemplate', target: { kind: 'device', name: 'audited-edge-1' }, status: run.status },
      { operation: 'mop.RunCommandTemplate', target: { kind: 'device', name: 'audited-edge-2' }, status: run.status },
    ]),
  );
  // the run's own record, and one per device named (once each)
  expect(recorded).toHaveLength(3);
  expect((await records('equals[target.name]=audited-edge-2')).map((r) => r.operation)).toEqual(['mop.RunCommandTemplate']);

  // refused (no such template): each device named still has its record, with the refusal
  const refused = await platform.http('POST', '/mop/RunCommandTemplate', {
    token: admin,
    body: { template: 'audited-run-missing', devices: ['audited-edge-3'] },
  });
  expect(refused.status).toBeGreaterThanOrEqual(400);
  const refusedId = refused.headers.get('x-request-id') ?? '';
  const onDevice = (await records(`equals[requestId]=${encodeURIComponent(refusedId)}`)).filter((r) => r.target?.kind === 'device');
  expect(onDevice.map((r) => ({ target: r.target, outcome: r.outcome }))).toEqual([
    {
      target: { kind: 'device', name: 'audited-edge-3' },
      outcome: { status: refused.status, code: (refused.body as { code: string }).code },
    },
  ]);
});

it('records a cancel of several jobs once per job, named, with the status each left', async () => {
  const waiting = workflowDocument('audited-wait', { v1: waitingTask() }, [
    ['workflow_start', 'v1'],
    ['v1', 'workflow_end'],
  ]);
  await createAutomation(platform, admin, waiting);
  const started = await platform.http('POST', '/workflow_engine/startJobWithOptions/audited-wait', { token: admin, body: { options: {} } });
  expect(started.status).toBe(200);
  const jobId = (started.body as { _id: string })._id;
  await waitForJob(platform, admin, jobId, ['running']);

  const canceled = await platform.http('POST', '/operations-manager/jobs/cancel', {
    token: admin,
    body: { jobIds: [jobId, 'no-such-job'] },
  });
  expect(canceled.status).toBe(200);
  const requestId = canceled.headers.get('x-request-id') ?? '';
  const each = await records(`equals[requestId]=${encodeURIComponent(requestId)}&sort=seq&order=1`);
  expect(each).toHaveLength(2);
  expect(each[0]).toMatchObject({
    operation: 'workflow.cancelJobs',
    target: { kind: 'job', id: jobId, name: 'audited-wait' },
    changes: [{ member: 'status', before: 'running', after: 'canceled' }],
    outcome: { status: 200 },
  });
  expect(each[1]).toMatchObject({ target: { kind: 'job', id: 'no-such-job' }, outcome: { status: 200 } });
  expect(each[1]?.changes).toBeUndefined();
  // found by the job's id, as any record of it
  expect((await records(`targetId=${jobId}`)).map((r) => r.operation)).toEqual(['workflow.cancelJobs', 'workflow.startJobWithOptions']);

  // refused by role: the gateway refuses before it reads the body, so the request is one record
  const viewer = await platform.http('POST', '/user-management/accounts', {
    token: admin,
    body: { account: { username: 'cancel-viewer', password: 'cancel-viewer-password-1' } },
  });
  expect(viewer.status).toBe(200);
  const refused = await platform.http('POST', '/operations-manager/jobs/cancel', {
    token: await platform.login('cancel-viewer', 'cancel-viewer-password-1'),
    body: { jobIds: [jobId, 'another-job'] },
  });
  expect(refused.status).toBe(403);
  expect(await recordOf(refused)).toMatchObject({ target: { kind: 'job' }, outcome: { status: 403, code: 'FORBIDDEN' } });
});

it('records an import of several automations once per automation imported', async () => {
  const imported = await platform.http('PUT', '/operations-manager/automations', {
    token: admin,
    body: { automations: [{ name: 'audited-import-1' }, { description: 'no name' }, { name: 'audited-import-2' }], options: {} },
  });
  expect(imported.status).toBe(200);
  const requestId = imported.headers.get('x-request-id') ?? '';
  const each = await records(`equals[requestId]=${encodeURIComponent(requestId)}&sort=seq&order=1`);
  expect(each.map((r) => [r.operation, r.target?.kind, r.target?.name, typeof r.target?.id])).toEqual([
    ['workflow.importAutomations', 'automation', 'audited-import-1', 'string'],
    ['workflow.importAutomations', 'automation', 'audited-import-2', 'string'],
  ]);
  // nothing imported: the request is one record all the same
  const none = await platform.http('PUT', '/operations-manager/automations', {
    token: admin,
    body: { automations: [{ description: 'no name' }], options: {} },
  });
  expect(none.status).toBe(200);
  expect(await recordOf(none)).toMatchObject({ operation: 'workflow.importAutomations', target: { kind: 'automation' } });
});

it("records each workflow and form a studio import stored, named as its own routes name it, and a workflow's changes under the same kind", async () => {
  const imported = await platform.http('POST', '/automation-studio/automations/import', {
    token: admin,
    body: {
      automations: [greetWorkflow('studio-import-1'), { name: 'studio-import-bad', tasks: 'none' }, greetWorkflow('studio-import-2')],
    },
  });
  expect(imported.status).toBe(200);
  const stored = (imported.body as { imported: { success: boolean; created: { _id: string } | null }[] }).imported;
  expect(stored.map((i) => i.success)).toEqual([true, false, true]);
  const each = await records(`equals[requestId]=${encodeURIComponent(imported.headers.get('x-request-id') ?? '')}&sort=seq&order=1`);
  expect(each.map((r) => [r.operation, r.target])).toEqual([
    ['studio.importAutomations', { kind: 'workflow', id: stored[0]?.created?._id, name: 'studio-import-1' }],
    ['studio.importAutomations', { kind: 'workflow', id: stored[2]?.created?._id, name: 'studio-import-2' }],
  ]);
  // the workflow's own records, created by import and changed by update, are one kind: targetId finds both
  const id = stored[0]?.created?._id ?? '';
  const updated = await platform.http('PUT', `/automation-studio/automations/${id}`, {
    token: admin,
    body: { update: { ...greetWorkflow('studio-import-1'), description: 'changed after import' } },
  });
  expect(updated.status).toBe(200);
  const history = await records(`targetId=${id}&sort=seq&order=1`);
  expect(history.map((r) => [r.operation, r.target?.kind])).toEqual([
    ['studio.importAutomations', 'workflow'],
    ['studio.updateAutomation', 'workflow'],
  ]);
  expect(history[1]?.changes).toContainEqual({ member: 'description', before: 'studio-import-1', after: 'changed after import' });

  const forms = await platform.http('POST', '/formbuilder/forms/import', {
    token: admin,
    body: { forms: [{ name: 'audited-form', struct: { type: 'object', items: [] } }] },
  });
  expect(forms.status).toBe(200);
  const form = await records(`equals[requestId]=${encodeURIComponent(forms.headers.get('x-request-id') ?? '')}`);
  expect(form.map((r) => [r.operation, r.target?.kind, r.target?.name])).toEqual([['studio.importForms', 'form', 'audited-form']]);

  // one route imports both kinds of MOP template: the record says which
  for (const [type, kind] of [
    ['template', 'command-template'],
    ['analytic', 'analytic-template'],
  ] as const) {
    const mop = await platform.http('POST', '/mop/import', { token: admin, body: { type, template: { name: `audited-${type}` } } });
    expect(mop.status).toBe(type === 'analytic' ? 201 : 200); // 201 for an analytic template, as ipctl checks it
    expect(await recordOf(mop)).toMatchObject({
      operation: 'mop.importTemplate',
      target: { kind, id: (mop.body as { _id: string })._id, name: `audited-${type}` },
    });
  }
});

it('names what a delete removed: its kind, id and name, though the answer says only that it was deleted', async () => {
  const created = async (route: string, body: unknown): Promise<string> => {
    const res = await platform.http('POST', route, { token: admin, body });
    expect([route, res.status < 300 ? 'created' : JSON.stringify(res.body)]).toEqual([route, 'created']);
    const answer = res.body as { _id?: string; data?: { _id: string } };
    return answer.data?._id ?? answer._id ?? '';
  };
  const jst = {
    name: 'audited-jst',
    incoming: [{ $id: 'who', type: 'string' }],
    outgoing: [{ $id: 'who', type: 'string' }],
    steps: [],
  };
  const cases = [
    [
      'DELETE',
      '/automation-studio/automations/',
      await created('/automation-studio/automations', { automation: greetWorkflow('audited-delete') }),
      'workflow',
      'audited-delete',
    ],
    ['DELETE', '/transformations/', await created('/transformations', jst), 'transformation', 'audited-jst'],
    [
      'DELETE',
      '/formbuilder/forms/',
      await created('/formbuilder/forms', { form: { name: 'audited-form-delete', struct: { type: 'object', items: [] } } }),
      'form',
      'audited-form-delete',
    ],
    [
      'POST',
      '/mop/deleteTemplate/',
      await created('/mop/createTemplate', { mop: { name: 'audited-mop', os: 'x', passRule: true, commands: [] } }),
      'command-template',
      'audited-mop',
    ],
  ] as const;
  for (const [method, route, id, kind, name] of cases) {
    expect(id).not.toBe('');
    const deleted = await platform.http(method, `${route}${encodeURIComponent(id)}`, { token: admin });
    // a transformation's delete answers 204, as ipctl checks it
    const ok = route === '/transformations/' ? 204 : 200;
    expect([route, deleted.status]).toEqual([route, ok]);
    expect(await recordOf(deleted)).toMatchObject({ outcome: { status: ok }, target: { kind, id, name } });
  }
});

it('records what an update of a MOP or device template, component group, trigger or link changed, before and after', async () => {
  const send = async (method: string, route: string, body: unknown) => {
    const res = await platform.http(method, route, { token: admin, body });
    expect([method, route, res.status < 300 ? 'ok' : JSON.stringify(res.body)]).toEqual([method, route, 'ok']);
    return res;
  };
  const idOf = (res: { body: unknown }): string => {
    const answer = res.body as { _id?: string; id?: string; data?: { _id: string } };
    return answer.data?._id ?? answer._id ?? answer.id ?? '';
  };
  const mop = idOf(await send('POST', '/mop/createTemplate', { mop: { name: 'audited-update', os: 'ios', passRule: true, commands: [] } }));
  const device = idOf(await send('POST', '/configuration_manager/templates', { name: 'audited-base', template: 'hostname {{ h }}' }));
  const group = idOf(await send('POST', '/automation-studio/component-groups', { componentGroup: { name: 'audited-day0', members: [] } }));
  const actionId = await createAutomation(platform, admin, greetWorkflow('audited-trigger-target'));
  const trigger = idOf(
    await send('POST', '/operations-manager/triggers', { name: 'audited-trigger', type: 'endpoint', actionId, routeName: 'audited-route' }),
  );
  const link = idOf(await send('POST', '/external-links', { name: 'audited-link', address: 'http://grafana.example.com/d/1' }));

  const cases = [
    [
      await send('POST', `/mop/updateTemplate/${mop}`, { mop: { name: 'audited-update', os: 'junos', passRule: true, commands: [] } }),
      { kind: 'command-template', id: mop, name: 'audited-update' },
      { member: 'os', before: 'ios', after: 'junos' },
    ],
    [
      await send('PUT', `/configuration_manager/templates/${device}`, { name: 'audited-base', template: 'hostname {{ host }}' }),
      { kind: 'device-template', id: device, name: 'audited-base' },
      { member: 'template', before: 'hostname {{ h }}', after: 'hostname {{ host }}' },
    ],
    [
      await send('PUT', `/automation-studio/component-groups/${group}`, {
        update: { name: 'audited-day0', description: 'day zero', members: [] },
      }),
      { kind: 'component-group', id: group, name: 'audited-day0' },
      { member: 'description', before: '', after: 'day zero' },
    ],
    [
      await send('PATCH', `/operations-manager/triggers/${trigger}`, { changes: { routeName: 'audited-route-2' } }),
      { kind: 'trigger', id: trigger, name: 'audited-trigger' },
      { member: 'routeName', before: 'audited-route', after: 'audited-route-2' },
    ],
    [
      await send('PATCH', `/external-links/${link}`, { address: 'http://grafana.example.com/d/2' }),
      { kind: 'link', id: link, name: 'audited-link' },
      { member: 'address', before: 'http://grafana.example.com/d/1', after: 'http://grafana.example.com/d/2' },
    ],
  ] as const;
  for (const [res, target, change] of cases) {
    const record = await recordOf(res);
    expect(record.target).toEqual(target);
    expect(record.changes).toEqual([change]);
  }
});

it("records what a change of an application's settings changed, and which profile a switch made active", async () => {
  const level = await platform.http('PUT', '/applications/MOP/loglevel', { token: admin, body: { properties: { level: 'warn' } } });
  expect(level.status).toBe(200);
  const leveled = await recordOf(level);
  expect(leveled.target).toEqual({ kind: 'application', id: 'MOP', name: 'MOP' });
  expect(leveled.changes).toEqual(expect.arrayContaining([expect.objectContaining({ member: 'logLevel', after: 'warn' })]));
  expect(leveled.changes?.map((c) => c.member).filter((m) => /revision|changelog|lastUpdated/.test(m))).toEqual([]);
  const stopped = await platform.http('PUT', '/applications/MOP/stop', { token: admin });
  expect(stopped.status).toBe(200);
  expect((await recordOf(stopped)).changes).toEqual([{ member: 'stopped', before: false, after: true }]);
  const started = await platform.http('PUT', '/applications/MOP/start', { token: admin });
  expect(started.status).toBe(200);
  expect((await recordOf(started)).changes).toEqual([{ member: 'stopped', before: true, after: false }]);

  const profile = await platform.http('POST', '/profiles', { token: admin, body: { properties: { id: 'audited-profile' } } });
  expect(profile.status).toBe(200);
  const switched = await platform.http('PUT', '/profiles/audited-profile/active', { token: admin });
  expect(switched.status).toBe(200);
  expect(await recordOf(switched)).toMatchObject({
    target: { kind: 'profile', id: 'audited-profile' },
    changes: [{ member: 'activeProfile', before: 'default', after: 'audited-profile' }],
  });
  const back = await platform.http('PUT', '/profiles/default/active', { token: admin });
  expect((await recordOf(back)).changes).toEqual([{ member: 'activeProfile', before: 'audited-profile', after: 'default' }]);
});

it("records the jobs a schedule starts as the platform acting for the schedule's creator", async () => {
  const automation = await createAutomation(platform, admin, greetWorkflow('audited-schedule'));
  const created = await platform.http('POST', '/operations-manager/triggers', {
    token: admin,
    body: { type: 'schedule', name: 'audited schedule', actionId: automation, firstRunAt: Date.now() + 500, formData: { who: 'audit' } },
  });
  expect(created.status).toBe(200);
  const [record] = await eventually('the record of the scheduled job', async () => {
    const found = await records('actor=schedule');
    return found.length > 0 && found;
  });
  expect(record).toMatchObject({
    operation: 'workflow.runSchedule',
    method: 'PLATFORM',
    actor: { kind: 'platform', username: 'schedule', onBehalfOf: 'admin' },
    target: { kind: 'job', name: 'audited schedule' },
    outcome: { status: 200 },
  });
  const job = await platform.http('GET', `/operations-manager/jobs/${record?.target?.id ?? ''}`, { token: admin });
  expect(job.status).toBe(200);
});

it('counts an export with a bad time as 400 naming it', async () => {
  const res = await platform.http('GET', '/audit/export?since=yesterday', { token: admin });
  expect(res.status).toBe(400);
  expect(JSON.stringify(res.body)).toContain('since');
});
