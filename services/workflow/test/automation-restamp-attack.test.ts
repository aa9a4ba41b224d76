import { AppError } from '@nap/contracts';
import type { Caller, Envelope } from '@nap/contracts';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import type { Collection, Doc } from '@nap/store';
import { task, workflowDocument } from '@nap/testing';

/**
 * PATCH of an automation that points it at another workflow gives its schedules and event triggers
 * the caller's identity before the change, and puts back who they acted as when the change then
 * fails: a name in use, a compare-and-set lost to a concurrent change, a store that fails. Nothing
 * is left acting as the caller on an automation the caller did not change, and the audit trail of
 * the request says what was changed (nothing, for a failure).
 */
let platform: TestPlatform;
let admin: string;
/** engineering, in a group of its own */
let bob: string;
let bobId: string;

type Trigger = { _id: string; name: string; actionId: string; runAs?: Caller };
type Automation = { _id: string; name: string; componentName: string | null; lastUpdated?: unknown };

let triggers: Collection<Trigger & Doc>;
let automations: Collection<Automation & Doc>;

async function workflow(name: string): Promise<void> {
  const doc = workflowDocument(name, { a1: task('newVariable', { name: 'a', value: 1 }) }, [
    ['workflow_start', 'a1'],
    ['a1', 'workflow_end'],
  ]);
  const res = await platform.http('POST', '/automation-studio/automations', { token: admin, body: { automation: doc } });
  if (res.status !== 200) throw new Error(`workflow ${name}: ${res.status} ${JSON.stringify(res.body)}`);
}

/** An automation of the admin's with a schedule, an event trigger and an endpoint trigger (all disabled, so none fires). */
async function scheduledAutomation(name: string): Promise<Automation> {
  const res = await platform.http('POST', '/operations-manager/automations', {
    token: admin,
    body: { automation: { name, componentType: 'workflows', componentName: 'restamp-open' } },
  });
  if (res.status !== 200) throw new Error(`automation: ${res.status} ${JSON.stringify(res.body)}`);
  const auto = (res.body as Envelope<Automation>).data;
  for (const body of [
    { name: 'nightly', type: 'schedule', firstRunAt: Date.now() + 3_600_000, processMissedRuns: 'none' },
    { name: 'on-complete', type: 'eventSystem', topic: 'jobComplete' },
    { name: 'hook', type: 'endpoint', routeName: `${name}-hook`, verb: 'POST' },
  ]) {
    const created = await platform.http('POST', '/operations-manager/triggers', {
      token: admin,
      body: { actionId: auto._id, enabled: false, ...body },
    });
    if (created.status !== 200) throw new Error(`trigger: ${created.status} ${JSON.stringify(created.body)}`);
  }
  return auto;
}

/** Who each trigger of the automation acts as, whole (id, username, roles, groups), by name. */
async function runsAs(automationId: string): Promise<Record<string, Caller | undefined>> {
  return Object.fromEntries((await triggers.find({ actionId: automationId })).map((t) => [t.name, t.runAs]));
}

function patch(id: string, body: unknown, token: string) {
  return platform.http('PATCH', `/operations-manager/automations/${encodeURIComponent(id)}`, { token, body });
}

const isAutomation = (id: string) => (args: unknown[]) => (args[0] as { _id?: unknown })._id === id;

beforeAll(async () => {
  platform = await startTestPlatform();
  admin = await platform.login();
  const group = await platform.http('POST', '/user-management/groups', {
    token: admin,
    body: { group: { name: 'restamp-bob-group', roles: ['engineering'] } },
  });
  const groupId = (group.body as Envelope<{ _id: string }>).data._id;
  const account = await platform.http('POST', '/user-management/accounts', {
    token: admin,
    body: { account: { username: 'restamp-bob', password: 'password-123', groups: [groupId] } },
  });
  if (account.status !== 200) throw new Error(`account: ${account.status} ${JSON.stringify(account.body)}`);
  bobId = (account.body as Envelope<{ _id: string }>).data._id;
  bob = await platform.login('restamp-bob', 'password-123');
  await workflow('restamp-open');
  await workflow('restamp-bob-own');
  const store = platform.stores.get('workflow');
  if (store === undefined) throw new Error('no workflow store');
  // the very collections the service uses (the store hands out one per name)
  triggers = store.collection<Trigger & Doc>('triggers');
  automations = store.collection<Automation & Doc>('automations');
}, 60_000);

afterEach(() => {
  jest.restoreAllMocks();
});

afterAll(async () => {
  await platform?.stop();
});

describe('PATCH /operations-manager/automations/:id that points it elsewhere and then fails', () => {
  it('a name in use (409): the schedules and event triggers act as before, whole, and the audit record names no change', async () => {
    await scheduledAutomation('restamp-taken');
    const auto = await scheduledAutomation('restamp-clash');
    const before = await runsAs(auto._id);
    expect(before.nightly?.username).toBe('admin');

    const res = await patch(auto._id, { componentName: 'restamp-bob-own', name: 'restamp-taken' }, bob);
    expect({ status: res.status, code: (res.body as { code?: string }).code }).toEqual({
      status: 409,
      code: 'AUTOMATION_ALREADY_EXISTS',
    });
    expect(await runsAs(auto._id)).toEqual(before);
    const record = await platform.auditRecordOf(res, admin);
    expect(record.outcome).toEqual({ status: 409, code: 'AUTOMATION_ALREADY_EXISTS' });
    expect(record.changes).toBeUndefined();
  });

  it('a store that fails the write (503): the triggers act as before', async () => {
    const auto = await scheduledAutomation('restamp-outage');
    const before = await runsAs(auto._id);
    const replaceOne = automations.replaceOne.bind(automations);
    jest
      .spyOn(automations, 'replaceOne')
      .mockImplementation((...args: Parameters<typeof replaceOne>) =>
        isAutomation(auto._id)(args) ? Promise.reject(new AppError('STORE_UNAVAILABLE', 'MongoDB cannot be reached')) : replaceOne(...args),
      );
    const res = await patch(auto._id, { componentName: 'restamp-bob-own' }, bob);
    expect(res.status).toBe(503);
    expect(await runsAs(auto._id)).toEqual(before);
    expect((await platform.auditRecordOf(res, admin)).changes).toBeUndefined();
  });

  it('a compare-and-set lost every time (409 CONFLICT): the triggers act as before', async () => {
    const auto = await scheduledAutomation('restamp-always-changed');
    const before = await runsAs(auto._id);
    const replaceOne = automations.replaceOne.bind(automations);
    let attempts = 0;
    jest.spyOn(automations, 'replaceOne').mockImplementation((...args: Parameters<typeof replaceOne>) => {
      if (!isAutomation(auto._id)(args)) return replaceOne(...args);
      attempts++;
      return Promise.resolve({ matchedCount: 0, modifiedCount: 0 } as Awaited<ReturnType<typeof replaceOne>>);
    });
    const res = await patch(auto._id, { componentName: 'restamp-bob-own' }, bob);
    expect({ status: res.status, code: (res.body as { code?: string }).code }).toEqual({ status: 409, code: 'CONFLICT' });
    expect(attempts).toBeGreaterThan(1);
    expect(await runsAs(auto._id)).toEqual(before);
  });

  it('a compare-and-set lost once to a concurrent change: the retry re-stamps them, and the audit record says so', async () => {
    const auto = await scheduledAutomation('restamp-changed-once');
    const replaceOne = automations.replaceOne.bind(automations);
    let concurrent = false;
    jest.spyOn(automations, 'replaceOne').mockImplementation(async (...args: Parameters<typeof replaceOne>) => {
      if (isAutomation(auto._id)(args) && !concurrent) {
        concurrent = true;
        // another change lands between the read and the write
        const current = await automations.findOne({ _id: auto._id });
        await replaceOne(
          { _id: auto._id },
          { ...(current as Automation & Doc), description: 'changed meanwhile', lastUpdated: new Date(Date.now() + 1000).toISOString() },
        );
      }
      return replaceOne(...args);
    });
    const res = await patch(auto._id, { componentName: 'restamp-bob-own' }, bob);
    expect(res.status).toBe(200);
    expect(concurrent).toBe(true);
    const after = await runsAs(auto._id);
    expect({ nightly: after.nightly?.username, event: after['on-complete']?.username, hook: after.hook?.username }).toEqual({
      nightly: 'restamp-bob',
      event: 'restamp-bob',
      hook: 'admin',
    });
    const record = await platform.auditRecordOf(res, admin);
    const runAsChanges = (record.changes ?? []).filter((c) => /^triggers\..+\.runAs$/.test(c.member));
    expect(runAsChanges).toEqual([
      expect.objectContaining({ before: 'admin', after: 'restamp-bob' }),
      expect.objectContaining({ before: 'admin', after: 'restamp-bob' }),
    ]);
  });

  it('a trigger that acted as nobody (stored without runAs) is put back as it was', async () => {
    const auto = await scheduledAutomation('restamp-no-run-as');
    await triggers.updateOne({ actionId: auto._id, name: 'nightly' }, { $unset: { runAs: '' } });
    const before = await runsAs(auto._id);
    expect(before.nightly).toBeUndefined();
    await scheduledAutomation('restamp-taken-2');
    const res = await patch(auto._id, { componentName: 'restamp-bob-own', name: 'restamp-taken-2' }, bob);
    expect(res.status).toBe(409);
    expect(await runsAs(auto._id)).toEqual(before);
  });

  it('a trigger changed by another account meanwhile is not put back over that change', async () => {
    const auto = await scheduledAutomation('restamp-trigger-changed');
    await scheduledAutomation('restamp-taken-3');
    const replaceOne = automations.replaceOne.bind(automations);
    jest.spyOn(automations, 'replaceOne').mockImplementation(async (...args: Parameters<typeof replaceOne>) => {
      if (isAutomation(auto._id)(args)) {
        // the admin changes the schedule between bob's re-stamp and bob's (failing) write
        const nightly = (await runsAs(auto._id)).nightly;
        expect(nightly?.username).toBe('restamp-bob');
        const res = await platform.http('PATCH', `/operations-manager/triggers/${await triggerId(auto._id, 'nightly')}`, {
          token: admin,
          body: { description: 'the admin changed it' },
        });
        expect(res.status).toBe(200);
      }
      return replaceOne(...args);
    });
    const res = await patch(auto._id, { componentName: 'restamp-bob-own', name: 'restamp-taken-3' }, bob);
    expect(res.status).toBe(409);
    const after = await runsAs(auto._id);
    // the admin's change made the admin its identity; bob's failed change leaves that be
    expect({ nightly: after.nightly?.username, event: after['on-complete']?.username }).toEqual({ nightly: 'admin', event: 'admin' });
  });
});

describe('the put-back itself fails', () => {
  /** The store fails the automation's write, and `restores` of the put-backs of who its triggers act as. */
  function storeFails(automationId: string, restores: number): { failed: () => number } {
    const replaceOne = automations.replaceOne.bind(automations);
    jest
      .spyOn(automations, 'replaceOne')
      .mockImplementation((...args: Parameters<typeof replaceOne>) =>
        isAutomation(automationId)(args)
          ? Promise.reject(new AppError('STORE_UNAVAILABLE', 'MongoDB cannot be reached'))
          : replaceOne(...args),
      );
    const updateOne = triggers.updateOne.bind(triggers);
    let failed = 0;
    jest.spyOn(triggers, 'updateOne').mockImplementation((...args: Parameters<typeof updateOne>) => {
      const filter = args[0] as { 'runAs.id'?: { $eq?: unknown } };
      if (filter['runAs.id']?.$eq === bobId && failed < restores) {
        failed++;
        return Promise.reject(new AppError('STORE_UNAVAILABLE', 'MongoDB cannot be reached'));
      }
      return updateOne(...args);
    });
    return { failed: () => failed };
  }

  it('once: it is tried again, and the triggers act as before', async () => {
    const auto = await scheduledAutomation('restamp-restore-flaky');
    const before = await runsAs(auto._id);
    const store = storeFails(auto._id, 1);
    const res = await patch(auto._id, { componentName: 'restamp-bob-own' }, bob);
    expect(res.status).toBe(503);
    expect(store.failed()).toBe(1);
    expect(await runsAs(auto._id)).toEqual(before);
    expect((res.body as { message: string }).message).not.toContain('restamp-bob');
  });

  it('every time: the answer keeps its status and code and names the triggers left acting as the caller', async () => {
    const auto = await scheduledAutomation('restamp-restore-down');
    const store = storeFails(auto._id, Number.POSITIVE_INFINITY);
    const res = await patch(auto._id, { componentName: 'restamp-bob-own' }, bob);
    const body = res.body as { code: string; message: string };
    expect({ status: res.status, code: body.code }).toEqual({ status: 503, code: 'STORE_UNAVAILABLE' });
    expect(store.failed()).toBeGreaterThan(2);
    expect(body.message).toMatch(/"nightly", "on-complete" could not be given back .* now run as restamp-bob$/);
    const after = await runsAs(auto._id);
    expect({ nightly: after.nightly?.username, event: after['on-complete']?.username }).toEqual({
      nightly: 'restamp-bob',
      event: 'restamp-bob',
    });
  });
});

async function triggerId(automationId: string, name: string): Promise<string> {
  const found = await triggers.findOne({ actionId: automationId, name });
  if (found === null) throw new Error(`no trigger ${name}`);
  return found._id;
}
