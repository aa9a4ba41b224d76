import { getOperation, validateResponse } from '@nap/contracts';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { task, workflowDocument } from '@nap/testing';

/**
 * `PATCH /operations-manager/automations/:id` through HTTP: the members given change and the others
 * stay, a member the body does not list is refused by name, gbac is checked as on creation and
 * guards the change, a name in use is a clash, the audit trail lists what changed, and the
 * automation's triggers start the workflow it names after the change.
 */
let platform: TestPlatform;
let admin: string;

type Automation = {
  _id: string;
  name: string;
  description: string;
  componentType: string | null;
  componentName: string | null;
  componentId: string | null;
  gbac: { read: string[]; write: string[] };
  created: string;
  createdBy: string;
  lastUpdatedBy: string;
};

beforeAll(async () => {
  platform = await startTestPlatform();
  admin = await platform.login();
  for (const name of ['patch-first', 'patch-second']) {
    const doc = workflowDocument(
      name,
      { a1: task('stringConcat', { str: 'hello ', stringN: 'you' }, { combinedStrings: '$var.job.greeting' }, { type: 'operation' }) },
      [
        ['workflow_start', 'a1'],
        ['a1', 'workflow_end'],
      ],
    );
    const res = await platform.http('POST', '/automation-studio/automations', { token: admin, body: { automation: doc } });
    if (res.status !== 200) throw new Error(`workflow ${name}: ${res.status} ${JSON.stringify(res.body)}`);
  }
});

afterAll(async () => {
  await platform?.stop();
});

async function created(automation: Record<string, unknown>, token = admin): Promise<Automation> {
  const res = await platform.http('POST', '/operations-manager/automations', { token, body: { automation } });
  if (res.status !== 200) throw new Error(`automation ${String(automation.name)}: ${res.status} ${JSON.stringify(res.body)}`);
  // the answer of a creation lists the triggers made with it; the automation as stored has none
  const { triggers: _none, ...stored } = (res.body as { data: Automation & { triggers: unknown[] } }).data;
  return stored;
}

function patch(id: string, body: unknown, token = admin) {
  return platform.http('PATCH', `/operations-manager/automations/${encodeURIComponent(id)}`, { token, body });
}

/** A group with `roles`, an account in it, and that account's token. */
async function member(username: string, roles: string[]): Promise<{ token: string; groupId: string }> {
  const group = await platform.http('POST', '/user-management/groups', {
    token: admin,
    body: { group: { name: `${username}-group`, roles } },
  });
  const groupId = (group.body as { data: { _id: string } }).data._id;
  const account = await platform.http('POST', '/user-management/accounts', {
    token: admin,
    body: { account: { username, password: 'password-123', groups: [groupId] } },
  });
  if (account.status !== 200) throw new Error(`account ${username}: ${account.status} ${JSON.stringify(account.body)}`);
  return { token: await platform.login(username, 'password-123'), groupId };
}

it('changes the members given, keeps the others, and records what changed', async () => {
  const before = await created({ name: 'patch-keep', description: 'first', componentType: 'workflows', componentName: 'patch-first' });
  const res = await patch(before._id, { description: 'second' });
  expect(res.status).toBe(200);
  expect(validateResponse(getOperation('workflow.updateAutomation'), res.body)).toEqual([]);
  const after = (res.body as { data: Automation }).data;
  expect(after).toEqual({ ...before, description: 'second', lastUpdated: expect.any(String) as unknown, lastUpdatedBy: 'admin' });
  const read = await platform.http('GET', `/operations-manager/automations/${before._id}`, { token: admin });
  expect((read.body as { data: Automation }).data).toEqual(after);

  const record = await platform.auditRecordOf(res, admin);
  expect(record).toMatchObject({
    operation: 'workflow.updateAutomation',
    target: { kind: 'automation', id: before._id, name: 'patch-keep' },
    outcome: { status: 200 },
  });
  expect(record.changes).toEqual([{ member: 'description', before: 'first', after: 'second' }]);
});

it('loses no change to another made at the same time: each writes over the automation only as it read it', async () => {
  const before = await created({ name: 'patch-race', description: 'd0', componentType: 'workflows', componentName: 'patch-race-wf' });
  const answers = await Promise.all([
    patch(before._id, { name: 'patch-race-renamed' }),
    ...[1, 2, 3, 4, 5, 6].map((n) => patch(before._id, { description: `d${n}` })),
    patch(before._id, { componentName: 'patch-race-other' }),
  ]);
  expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
  const read = await platform.http('GET', `/operations-manager/automations/${before._id}`, { token: admin });
  const after = (read.body as { data: Automation }).data;
  // the rename and the workflow change both stand, whatever description was written last
  expect(after).toMatchObject({ name: 'patch-race-renamed', componentName: 'patch-race-other' });
  expect(['d1', 'd2', 'd3', 'd4', 'd5', 'd6']).toContain(after.description);
});

it('refuses a member the body does not list, naming each, and changes nothing', async () => {
  const before = await created({ name: 'patch-unknown' });
  const res = await patch(before._id, { name: 'renamed', triggers: [], createdBy: 'someone' });
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED' });
  const members = ((res.body as { details: { member: string }[] }).details ?? []).map((d) => d.member).sort();
  expect(members).toEqual(['body.createdBy', 'body.triggers']);
  expect((await patch(before._id, { gbac: { write: 'everyone' } })).body).toMatchObject({
    code: 'VALIDATION_FAILED',
    details: [expect.objectContaining({ member: 'body.gbac.write' })],
  });
  expect((await patch(before._id, {})).status).toBe(400);
  const read = await platform.http('GET', `/operations-manager/automations/${before._id}`, { token: admin });
  expect((read.body as { data: Automation }).data).toEqual(before);
});

it('answers 404 for an unknown id and 409 naming the automation that has the name', async () => {
  const missing = await patch('no-such-automation', { description: 'x' });
  expect(missing).toMatchObject({ status: 404, body: { code: 'AUTOMATION_NOT_FOUND' } });
  const taken = await created({ name: 'patch-taken' });
  const other = await created({ name: 'patch-other' });
  const clash = await patch(other._id, { name: 'patch-taken' });
  expect(clash).toMatchObject({ status: 409, body: { code: 'AUTOMATION_ALREADY_EXISTS' } });
  expect((clash.body as { message: string }).message).toContain(taken._id);
  expect((await platform.http('GET', `/operations-manager/automations/${other._id}`, { token: admin })).body).toMatchObject({
    data: { name: 'patch-other' },
  });
});

it('is refused to a role that may not create automations, and to a caller outside its gbac write groups', async () => {
  const target = await created({ name: 'patch-guarded' });
  const reader = await member('patch-reader', ['apiread']);
  expect(await patch(target._id, { description: 'x' }, reader.token)).toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });

  const insider = await member('patch-insider', ['engineering']);
  const outsider = await member('patch-outsider', ['engineering']);
  // gbac is checked as on creation: groups that exist, in lists of ids
  expect(await patch(target._id, { gbac: { write: ['no-such-group'] } })).toMatchObject({
    status: 404,
    body: { code: 'GROUP_NOT_FOUND', details: [expect.objectContaining({ member: 'body.gbac' })] },
  });
  const shared = await patch(target._id, { gbac: { write: [insider.groupId] } }, insider.token);
  expect(shared.status).toBe(200);
  expect((shared.body as { data: Automation }).data.gbac).toEqual({ write: [insider.groupId], read: [] });

  expect(await patch(target._id, { description: 'not theirs' }, outsider.token)).toMatchObject({
    status: 403,
    body: { code: 'GROUP_ACCESS_DENIED' },
  });
  expect((await patch(target._id, { description: 'theirs' }, insider.token)).status).toBe(200);
});

it("keeps the automation's triggers: they start the workflow it names after the change", async () => {
  const automation = await created({ name: 'patch-triggered', componentType: 'workflows', componentName: 'patch-first' });
  const trigger = await platform.http('POST', '/operations-manager/triggers', {
    token: admin,
    body: { name: 'patch-endpoint', type: 'endpoint', actionId: automation._id, routeName: 'patch-endpoint', verb: 'POST' },
  });
  expect(trigger.status).toBeLessThan(300);

  const res = await patch(automation._id, { name: 'patch-triggered-renamed', componentName: 'patch-second' });
  expect(res.status).toBe(200);
  expect((res.body as { data: Automation }).data).toMatchObject({
    name: 'patch-triggered-renamed',
    componentName: 'patch-second',
    componentId: null,
  });

  const started = await platform.http('POST', '/operations-manager/triggers/endpoint/patch-endpoint', { token: admin, body: {} });
  expect(started).toMatchObject({ status: 200, body: { data: { name: 'patch-second' } } });
  const triggers = await platform.http('GET', `/operations-manager/triggers?actionId=${automation._id}`, { token: admin });
  expect((triggers.body as { data: { name: string }[] }).data.map((t) => t.name)).toEqual(['patch-endpoint']);
});
