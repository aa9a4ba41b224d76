import type { JobDocument, Trigger } from '@nap/contracts';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { eventually, workflowDocument } from '@nap/testing';
import { createAutomation, greetWorkflow, jobsOf, scheduleMarker, waitForJob } from '../support/automation';

/**
 * What keeps triggers from being turned against the platform or against other accounts: a schema
 * whose pattern backtracks without end does not stop the platform; a trigger acts as whoever
 * changed it last, never with another account's rights; event triggers do not loop and see only the
 * jobs their creator may see; a trigger whose account is gone starts nothing and says why; a change
 * naming a member no trigger has is refused.
 */

let platform: TestPlatform;
let admin: string;
let eve: string;
let guarded: string;

type Envelope<T> = { message: string; data: T; metadata: Record<string, unknown> };

async function group(name: string, roles: string[]): Promise<string> {
  const res = await platform.http('POST', '/user-management/groups', { token: admin, body: { group: { name } } });
  if (res.status !== 200) throw new Error(`Creating group ${name}: ${res.status} ${JSON.stringify(res.body)}`);
  const id = (res.body as { data: { _id: string } }).data._id;
  await platform.http('PUT', `/user-management/groups/${id}/roles`, { token: admin, body: { roles } });
  return id;
}

async function account(username: string, groups: string[]): Promise<{ token: string; id: string }> {
  const password = `${username}-password-1234`;
  const res = await platform.http('POST', '/user-management/accounts', { token: admin, body: { account: { username, password, groups } } });
  if (res.status !== 200) throw new Error(`Creating account ${username}: ${res.status} ${JSON.stringify(res.body)}`);
  return { token: await platform.login(username, password), id: (res.body as { data: { _id: string } }).data._id };
}

async function createTrigger(token: string, body: Record<string, unknown>): Promise<Trigger> {
  const res = await platform.http('POST', '/operations-manager/triggers', { token, body: { trigger: body } });
  if (res.status !== 200) throw new Error(`Creating trigger: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as Envelope<Trigger>).data;
}

async function trigger(id: string): Promise<Trigger & { lastError?: { code: string; message: string } }> {
  return ((await platform.http('GET', `/operations-manager/triggers/${id}`, { token: admin })).body as Envelope<Trigger>).data;
}

beforeAll(async () => {
  platform = await startTestPlatform();
  admin = await platform.login();
  const engineers = await group('safety-engineers', ['engineering']);
  const secret = await group('safety-secret', ['engineering']);
  ({ token: eve } = await account('safety-eve', [engineers]));
  // a workflow shared with a group eve is not in
  const wf = await platform.http('POST', '/automation-studio/automations', {
    token: admin,
    body: { automation: greetWorkflow('safety-guarded', { groups: [secret] }) },
  });
  expect(wf.status).toBe(200);
  guarded = secret;
}, 90_000);

afterAll(async () => {
  await platform.stop();
});

it('stops the check of an endpoint trigger body whose schema pattern backtracks without end, and the platform goes on answering', async () => {
  const actionId = await createAutomation(platform, admin, greetWorkflow('safety-redos'));
  await createTrigger(admin, {
    name: 'redos',
    type: 'endpoint',
    actionId,
    routeName: 'safety-redos',
    schema: { type: 'object', properties: { who: { type: 'string', pattern: '^(a+)+$' } } },
  });
  // 40 characters: hours of backtracking on the event loop
  const call = platform.http('POST', '/operations-manager/triggers/endpoint/safety-redos', {
    token: admin,
    body: { who: `${'a'.repeat(40)}!` },
  });
  const during = Date.now();
  const health = await platform.http('GET', '/health/server', { token: admin });
  expect(health.status).toBe(200);
  expect(Date.now() - during).toBeLessThan(1_000);
  const res = await call;
  expect(res.status).toBe(422);
  expect(res.body).toMatchObject({ code: 'UNPROCESSABLE', message: expect.stringContaining('^(a+)+$') });
  // the schema version that overran is refused at once afterwards, and nothing was started
  const again = await platform.http('POST', '/operations-manager/triggers/endpoint/safety-redos', { token: admin, body: { who: 'aaa' } });
  expect(again.status).toBe(422);
  expect(await jobsOf(platform, admin, 'safety-redos')).toEqual([]);
}, 30_000);

it("runs a schedule changed by another account as that account: eve cannot re-point the admin's schedule at a workflow she may not run", async () => {
  const adminAuto = await createAutomation(platform, admin, greetWorkflow('safety-admin-wf'));
  const schedule = await createTrigger(admin, {
    name: 'admin schedule',
    type: 'schedule',
    actionId: adminAuto,
    firstRunAt: Date.now() + 3_600_000,
    repeatUnit: 'day',
    repeatFrequency: 1,
    formData: { who: 'admin' },
  });
  const eveAuto = await platform.http('POST', '/operations-manager/automations', {
    token: eve,
    body: { automation: { name: 'safety-eve-guarded', componentType: 'workflows', componentName: 'safety-guarded' } },
  });
  expect(eveAuto.status).toBe(200);
  const eveAutoId = (eveAuto.body as Envelope<{ _id: string }>).data._id;
  const repoint = await platform.http('PATCH', `/operations-manager/triggers/${schedule._id}`, {
    token: eve,
    body: { actionId: eveAutoId, firstRunAt: Date.now() + 500 },
  });
  expect(repoint.status).toBe(403);
  expect(repoint.body).toMatchObject({ code: 'GROUP_ACCESS_DENIED' });
  expect(await trigger(schedule._id)).toMatchObject({ actionId: adminAuto, lastUpdatedBy: 'admin' });

  // a change she may make takes her identity: the admin's schedule now runs with eve's rights
  const mine = await platform.http('PATCH', `/operations-manager/triggers/${schedule._id}`, {
    token: eve,
    body: { firstRunAt: Date.now() + 300, repeatUnit: null },
  });
  expect(mine.status).toBe(200);
  const [job] = await eventually(
    'the job of the schedule eve changed',
    async () => {
      const jobs = await jobsOf(platform, admin, 'safety-admin-wf');
      return jobs.length > 0 && jobs;
    },
    { intervalMs: 100 },
  );
  expect(job?.metrics?.owner).toBe('safety-eve');
}, 30_000);

it('refuses a change of a trigger naming a member no trigger has, and the create-style wrapper', async () => {
  const actionId = await createAutomation(platform, admin, greetWorkflow('safety-members'));
  const t = await createTrigger(admin, { name: 'members', type: 'endpoint', actionId, routeName: 'safety-members' });
  const wrapped = await platform.http('PATCH', `/operations-manager/triggers/${t._id}`, {
    token: admin,
    body: { trigger: { enabled: false } },
  });
  expect(wrapped.status).toBe(400);
  expect(wrapped.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ member: 'body.trigger' }] });
  const bogus = await platform.http('PATCH', `/operations-manager/triggers/${t._id}`, { token: admin, body: { enabled: false, bogus: 1 } });
  expect(bogus.status).toBe(400);
  expect(bogus.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ member: 'body.bogus' }] });
  const inChanges = await platform.http('PATCH', `/operations-manager/triggers/${t._id}`, {
    token: admin,
    body: { changes: { bogus: 1 } },
  });
  expect(inChanges.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ member: 'body.changes.bogus' }] });
  const stored = await trigger(t._id);
  expect(stored.enabled).toBe(true);
  expect(stored).not.toHaveProperty('bogus');
  expect(stored).not.toHaveProperty('trigger');
  // the whole record as read is a valid change (the service's members are ignored)
  const whole = await platform.http('PATCH', `/operations-manager/triggers/${t._id}`, {
    token: admin,
    body: { ...stored, enabled: false },
  });
  expect(whole.status).toBe(200);
  expect((whole.body as Envelope<Trigger>).data.enabled).toBe(false);
});

it('does not let an event trigger on its own automation start jobs without end, nor a chain of two triggers', async () => {
  // workflows that complete whatever their variables (an event's payload)
  const empty = (name: string) => workflowDocument(name, {}, [['workflow_start', 'workflow_end']]);
  const loopAuto = await createAutomation(platform, admin, empty('safety-loop'));
  const pingAuto = await createAutomation(platform, admin, empty('safety-ping'));
  const pongAuto = await createAutomation(platform, admin, empty('safety-pong'));
  // each fires on the completion of any job of its workflow's partner (or of itself)
  const loop = await createTrigger(admin, {
    name: 'loop',
    type: 'eventSystem',
    actionId: loopAuto,
    topic: 'jobComplete',
    schema: { type: 'object', properties: { name: { const: 'safety-loop' } }, required: ['name'] },
  });
  const ping = await createTrigger(admin, {
    name: 'ping',
    type: 'eventSystem',
    actionId: pingAuto,
    topic: 'jobComplete',
    schema: { type: 'object', properties: { name: { enum: ['safety-pong', 'safety-start'] } }, required: ['name'] },
  });
  const pong = await createTrigger(admin, {
    name: 'pong',
    type: 'eventSystem',
    actionId: pongAuto,
    topic: 'jobComplete',
    schema: { type: 'object', properties: { name: { const: 'safety-ping' } }, required: ['name'] },
  });
  try {
    const start = async (workflow: string): Promise<void> => {
      const res = await platform.http('POST', '/operations-manager/jobs/start', {
        token: admin,
        body: { workflow, options: { variables: { who: 'loop' } } },
      });
      expect(res.status).toBe(200);
      await waitForJob(platform, admin, (res.body as Envelope<JobDocument>).data._id);
    };
    await platform.http('POST', '/automation-studio/automations', { token: admin, body: { automation: empty('safety-start') } });
    await start('safety-loop');
    await start('safety-start');
    // the loop trigger fires once for the job a person started, never for the job it started itself;
    // ping fires for safety-start, pong for ping's job, and ping not again for pong's job (its own firing led to it)
    await eventually('the triggered jobs', async () => (await jobsOf(platform, admin, 'safety-pong')).length === 1, { intervalMs: 100 });
    await scheduleMarker(platform, admin, 'safety-loop-marker', Date.now() + 2_000);
    await eventually(
      'every triggered job ended',
      async () => {
        const jobs = [
          ...(await jobsOf(platform, admin, 'safety-loop')),
          ...(await jobsOf(platform, admin, 'safety-ping')),
          ...(await jobsOf(platform, admin, 'safety-pong')),
        ];
        return jobs.every((j) => j.status === 'complete');
      },
      { intervalMs: 100 },
    );
    expect((await jobsOf(platform, admin, 'safety-loop')).length).toBe(2);
    expect((await jobsOf(platform, admin, 'safety-ping')).length).toBe(1);
    expect((await jobsOf(platform, admin, 'safety-pong')).length).toBe(1);
  } finally {
    for (const t of [loop, ping, pong])
      await platform.http('PATCH', `/operations-manager/triggers/${t._id}`, { token: admin, body: { enabled: false } });
  }
}, 60_000);

it('fires an event trigger only for jobs its creator may see, and a trigger of a deleted account starts nothing and says why', async () => {
  const watcher = await account('safety-watcher', [await group('safety-watchers', ['engineering'])]);
  const auto = await platform.http('POST', '/operations-manager/automations', {
    token: watcher.token,
    body: { automation: { name: 'safety-capture', componentType: 'workflows', componentName: 'safety-capture' } },
  });
  expect(auto.status).toBe(200);
  await platform.http('POST', '/automation-studio/automations', { token: admin, body: { automation: greetWorkflow('safety-capture') } });
  await platform.http('POST', '/automation-studio/automations', { token: admin, body: { automation: greetWorkflow('safety-seen') } });
  const capture = await createTrigger(watcher.token, {
    name: 'capture',
    type: 'eventSystem',
    actionId: (auto.body as Envelope<{ _id: string }>).data._id,
    topic: 'jobComplete',
    schema: { type: 'object', properties: { name: { const: 'safety-seen' } }, required: ['name'] },
  });
  const run = async (groups: string[]): Promise<string> => {
    const res = await platform.http('POST', '/operations-manager/jobs/start', {
      token: admin,
      body: { workflow: 'safety-seen', options: { groups, variables: { who: 'seen' } } },
    });
    expect(res.status).toBe(200);
    const id = (res.body as Envelope<JobDocument>).data._id;
    await waitForJob(platform, admin, id);
    return id;
  };
  // a job of a group the watcher is not in: not hers to act on
  await run([guarded]);
  const open = await run([]);
  const [captured] = await eventually(
    'the capture of the open job',
    async () => {
      const jobs = await jobsOf(platform, admin, 'safety-capture');
      return jobs.length > 0 && jobs;
    },
    { intervalMs: 100 },
  );
  expect(captured?.variables).toMatchObject({ jobId: open });
  await scheduleMarker(platform, admin, 'safety-seen-marker', Date.now() + 1_500);
  expect((await jobsOf(platform, admin, 'safety-capture')).length).toBe(1);

  // the watcher's account is deleted: her trigger starts nothing, and says why
  expect((await platform.http('DELETE', `/user-management/accounts/${watcher.id}`, { token: admin })).status).toBe(200);
  await run([]);
  const failed = await eventually(
    'the trigger records why it did not start',
    async () => {
      const t = await trigger(capture._id);
      return t.lastError !== undefined && t;
    },
    { intervalMs: 100, timeoutMs: 15_000 },
  );
  expect(failed.lastError).toMatchObject({ code: 'UNPROCESSABLE', message: expect.stringContaining('was deleted') });
  expect((await jobsOf(platform, admin, 'safety-capture')).length).toBe(1);
}, 60_000);
