import { MAX_SECRET_TEXT_BYTES } from '@nap/contracts';
import type { Envelope } from '@nap/contracts';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { eventually, task, workflowDocument } from '@nap/testing';

/**
 * The recent additions of the workflow service tried as an attacker and a careless user would:
 * PATCH of an automation by callers who may not (another group, apiread, no role, a deactivated
 * account), or pointing it at a workflow they may not run; hostile members in its body; a retry's
 * error text with a secret the task's references gave it; a job variable named __proto__.
 */
let platform: TestPlatform;
let admin: string;
/** engineering, in a group of its own */
let bob: string;
let bobGroup: string;
/** engineering, in the group the guarded workflow is shared with */
let alice: string;
let aliceGroup: string;

type Automation = { _id: string; name: string; componentName: string | null; componentId: string | null; lastUpdatedBy: string };
type Job = {
  _id: string;
  status: string;
  variables: Record<string, unknown>;
  tasks: Record<string, { status?: string; variables?: { error?: unknown }; retries?: { error?: string }[] }>;
};

async function member(username: string, roles: string[]): Promise<{ token: string; groupId: string; accountId: string }> {
  const group = await platform.http('POST', '/user-management/groups', {
    token: admin,
    body: { group: { name: `${username}-group`, roles } },
  });
  const groupId = (group.body as Envelope<{ _id: string }>).data._id;
  const account = await platform.http('POST', '/user-management/accounts', {
    token: admin,
    body: { account: { username, password: 'password-123', groups: [groupId] } },
  });
  if (account.status !== 200) throw new Error(`account ${username}: ${account.status} ${JSON.stringify(account.body)}`);
  return {
    token: await platform.login(username, 'password-123'),
    groupId,
    accountId: (account.body as Envelope<{ _id: string }>).data._id,
  };
}

async function workflow(
  name: string,
  groups: string[],
  tasks: Record<string, ReturnType<typeof task>> = { a1: task('newVariable', { name: 'a', value: 1 }) },
): Promise<string> {
  const edges: [string, string][] = [['workflow_start', Object.keys(tasks)[0] as string]];
  const ids = Object.keys(tasks);
  ids.forEach((id, i) => edges.push([id, ids[i + 1] ?? 'workflow_end']));
  const doc = workflowDocument(name, tasks, edges, { groups, inputSchema: { type: 'object' } });
  const res = await platform.http('POST', '/automation-studio/automations', { token: admin, body: { automation: doc } });
  if (res.status !== 200) throw new Error(`workflow ${name}: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as Envelope<{ _id: string }>).data._id;
}

async function automation(body: Record<string, unknown>, token = admin): Promise<Automation> {
  const res = await platform.http('POST', '/operations-manager/automations', { token, body: { automation: body } });
  if (res.status !== 200) throw new Error(`automation: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as Envelope<Automation>).data;
}

async function stored(id: string): Promise<Automation> {
  const res = await platform.http('GET', `/operations-manager/automations/${id}`, { token: admin });
  return ((res.body as Envelope<Automation>).data ?? res.body) as Automation;
}

function patch(id: string, body: unknown, token: string) {
  return platform.http('PATCH', `/operations-manager/automations/${encodeURIComponent(id)}`, { token, body });
}

async function started(workflowName: string, variables: Record<string, unknown>): Promise<string> {
  const res = await platform.http('POST', '/operations-manager/jobs/start', {
    token: admin,
    body: { workflow: workflowName, options: { variables } },
  });
  if (res.status !== 200) throw new Error(`start ${workflowName}: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as Envelope<{ _id: string }>).data._id;
}

async function job(id: string): Promise<Job> {
  const res = await platform.http('GET', `/operations-manager/jobs/${id}`, { token: admin });
  const body = res.body as Envelope<Job> | Job;
  return 'data' in body ? body.data : body;
}

function ended(id: string): Promise<Job> {
  return eventually(
    `job ${id} ended`,
    async () => {
      const j = await job(id);
      return ['complete', 'error', 'canceled'].includes(j.status) && j;
    },
    { timeoutMs: 20_000 },
  );
}

beforeAll(async () => {
  platform = await startTestPlatform();
  admin = await platform.login();
  ({ token: bob, groupId: bobGroup } = await member('attack-bob', ['engineering']));
  ({ token: alice, groupId: aliceGroup } = await member('attack-alice', ['engineering']));
  await workflow('attack-guarded', [aliceGroup]);
  await workflow('attack-open', []);
}, 60_000);

afterAll(async () => {
  await platform?.stop();
});

describe('PATCH /operations-manager/automations/:id pointing at a workflow', () => {
  it("refuses to point another's automation at a workflow the caller may not run, by name or by id, and changes nothing", async () => {
    // the admin's automation is open to every engineer (no gbac); its schedules run as the admin
    const auto = await automation({ name: 'attack-admin-auto', componentType: 'workflows', componentName: 'attack-open' });
    const guardedId = (
      (await platform.http('GET', '/automation-studio/automations?equals[name]=attack-guarded', { token: admin })).body as {
        items: { _id: string }[];
      }
    ).items[0]?._id;
    expect(guardedId).toEqual(expect.any(String));
    for (const body of [
      { componentName: 'attack-guarded' },
      { componentId: guardedId },
      { componentName: 'attack-guarded', componentId: null },
    ]) {
      const res = await patch(auto._id, body, bob);
      expect({ status: res.status, code: (res.body as { code?: string }).code }).toEqual({ status: 403, code: 'GROUP_ACCESS_DENIED' });
    }
    expect(await stored(auto._id)).toMatchObject({ componentName: 'attack-open', componentId: null, lastUpdatedBy: 'admin' });

    // a workflow the caller may run is theirs to point at; one in their group too
    expect((await patch(auto._id, { componentName: 'attack-open', description: 'bob was here' }, bob)).status).toBe(200);
    expect((await patch(auto._id, { componentName: 'attack-guarded' }, alice)).status).toBe(200);
    // and the admin may point it anywhere
    expect((await patch(auto._id, { componentName: 'attack-open' }, admin)).status).toBe(200);
  });

  it('leaves a workflow that does not exist yet, and a change of other members, to the run as creation does', async () => {
    const auto = await automation({ name: 'attack-bob-auto', componentType: 'workflows', componentName: 'attack-open' }, bob);
    expect((await patch(auto._id, { componentName: 'attack-not-yet' }, bob)).status).toBe(200);
    const guarded = await automation({ name: 'attack-alice-auto', componentType: 'workflows', componentName: 'attack-guarded' }, alice);
    // bob may describe alice's (open) automation without running what it runs
    expect((await patch(guarded._id, { description: 'changed' }, bob)).status).toBe(200);
  });
});

describe('PATCH /operations-manager/automations/:id and the identity of its triggers', () => {
  it("gives the schedules and event triggers the identity of whoever points the automation elsewhere, so the admin's schedule never runs what bob chose as the admin", async () => {
    const auto = await automation({ name: 'attack-admin-scheduled', componentType: 'workflows', componentName: 'attack-open' });
    const create = (body: Record<string, unknown>) =>
      platform.http('POST', '/operations-manager/triggers', { token: admin, body: { actionId: auto._id, enabled: false, ...body } });
    const schedule = await create({ name: 'nightly', type: 'schedule', firstRunAt: Date.now() + 3_600_000, processMissedRuns: 'none' });
    const event = await create({ name: 'on-complete', type: 'eventSystem', topic: 'jobComplete' });
    const endpoint = await create({ name: 'hook', type: 'endpoint', routeName: 'attack-hook', verb: 'POST' });
    for (const res of [schedule, event, endpoint]) expect(res.status).toBe(200);
    const triggers = platform.stores.get('workflow')?.collection<{ _id: string; name: string; runAs?: { username: string } }>('triggers');
    const runsAs = async () =>
      Object.fromEntries((await triggers?.find({ actionId: auto._id }))?.map((t) => [t.name, t.runAs?.username]) ?? []);
    expect(await runsAs()).toEqual({ nightly: 'admin', 'on-complete': 'admin', hook: 'admin' });

    // a change that does not point it elsewhere leaves them as they are
    expect((await patch(auto._id, { description: 'bob describes it' }, bob)).status).toBe(200);
    expect(await runsAs()).toEqual({ nightly: 'admin', 'on-complete': 'admin', hook: 'admin' });

    const repointed = await patch(auto._id, { componentName: 'attack-bob-own' }, bob);
    expect(repointed.status).toBe(200);
    expect((repointed.body as { message: string }).message).toBe(
      'Automation "attack-admin-scheduled" updated; its 2 schedules and event triggers now run as attack-bob',
    );
    // the endpoint trigger runs as whoever calls it: nothing to change
    expect(await runsAs()).toEqual({ nightly: 'attack-bob', 'on-complete': 'attack-bob', hook: 'admin' });
    const record = await platform.auditRecordOf(repointed, admin);
    expect(record.changes).toEqual(
      expect.arrayContaining([
        { member: 'componentName', before: 'attack-open', after: 'attack-bob-own' },
        expect.objectContaining({ member: expect.stringMatching(/^triggers\..+\.runAs$/), before: 'admin', after: 'attack-bob' }),
      ]),
    );
  });
});

describe('a name or id in use', () => {
  it('names the automation in the way by its id only to a caller who may read it', async () => {
    const hidden = await automation(
      {
        name: 'attack-hidden-name',
        componentType: 'workflows',
        componentName: 'attack-open',
        gbac: { read: [aliceGroup], write: [aliceGroup] },
      },
      alice,
    );
    const mine = await automation({ name: 'attack-bob-rename', componentType: 'workflows', componentName: 'attack-open' }, bob);
    const message = (res: { body: unknown }) => (res.body as { message: string }).message;
    const created = await platform.http('POST', '/operations-manager/automations', {
      token: bob,
      body: { automation: { name: 'attack-hidden-name', componentType: 'workflows', componentName: 'attack-open' } },
    });
    expect(created.status).toBe(409);
    expect(message(created)).toBe('An automation named "attack-hidden-name" exists');
    const renamed = await patch(mine._id, { name: 'attack-hidden-name' }, bob);
    expect(renamed.status).toBe(409);
    expect(message(renamed)).not.toContain(hidden._id);
    // its readers are told which
    const byAlice = await platform.http('POST', '/operations-manager/automations', {
      token: alice,
      body: { automation: { name: 'attack-hidden-name', componentType: 'workflows', componentName: 'attack-open' } },
    });
    expect(message(byAlice)).toContain(hidden._id);
  });
});

describe('PATCH /operations-manager/automations/:id: who may, and hostile bodies', () => {
  it('refuses apiread, no role, a deactivated account, and another group on a gbac-guarded automation', async () => {
    const carol = await member('attack-carol', ['apiread']);
    const dave = await member('attack-dave', []);
    const eve = await member('attack-eve', ['engineering']);
    const deactivated = await platform.http('PATCH', `/authorization/accounts/${eve.accountId}`, {
      token: admin,
      body: { inactive: true },
    });
    expect(deactivated.status).toBe(200);
    const guarded = await automation(
      { name: 'attack-gbac', componentType: 'workflows', componentName: 'attack-open', gbac: { read: [aliceGroup], write: [aliceGroup] } },
      alice,
    );
    const tries = [
      [carol.token, 403, 'FORBIDDEN'],
      [dave.token, 403, 'FORBIDDEN'],
      [eve.token, 401, 'UNAUTHENTICATED'],
      [bob, 403, 'GROUP_ACCESS_DENIED'],
    ] as const;
    for (const [token, status, code] of tries) {
      const res = await patch(guarded._id, { description: 'mine now' }, token);
      expect({ status: res.status, code: (res.body as { code?: string }).code }).toEqual({ status, code });
    }
    expect(await stored(guarded._id)).toMatchObject({ lastUpdatedBy: 'attack-alice' });
    expect(bobGroup).not.toBe(aliceGroup);
  });

  it('refuses __proto__ and constructor members at every level, naming them, and pollutes nothing', async () => {
    const auto = await automation({ name: 'attack-proto', componentType: 'workflows', componentName: 'attack-open' });
    for (const [raw, member] of [
      ['{"__proto__":{"gbac":{"read":[],"write":[]}},"description":"x"}', 'body.__proto__'],
      ['{"gbac":{"__proto__":{"write":[]}}}', 'body.gbac.__proto__'],
      ['{"constructor":{"prototype":{"polluted":true}}}', 'body.constructor'],
    ] as const) {
      const res = await patch(auto._id, raw, admin);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ member }] });
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('a retry by hand', () => {
  it("masks in its error the secrets the task's references gave it", async () => {
    await workflow('attack-retry-mask', [], {
      a1: task('stringConcat', { str: 'x', stringN: '$var.job.creds' }, { combinedStrings: '$var.job.out' }),
      a2: task('stringConcat', { str: 'x', stringN: '$var.job.keyed' }, { combinedStrings: '$var.job.out2' }),
    });
    const secret = 'Hunter2-secret-pw';
    const id = await started('attack-retry-mask', { creds: { username: 'ops', password: secret }, keyed: ['k'] });
    const failed = await ended(id);
    // the task failed saying why, with the secret its reference gave it masked (in the answer and so in the store)
    expect(String(failed.tasks.a1?.variables?.error)).toContain('"password":"********"');
    expect(String(failed.tasks.a1?.variables?.error)).not.toContain(secret);
    const retried = await platform.http('POST', `/workflow_engine/jobs/${id}/retryTask`, {
      token: admin,
      body: { taskId: 'a1', variables: { str: { value: 'y' } } },
    });
    expect(retried.status).toBe(200);
    const after = await ended(id);
    const retries = after.tasks.a1?.retries ?? [];
    expect(retries).toHaveLength(1);
    expect(retries[0]?.error).toEqual(expect.stringContaining('"password":"********"'));
    expect(JSON.stringify(retries)).not.toContain(secret);
  });
});

describe('a job that starts with more secret text than a job may hold', () => {
  it('is refused with 400 naming the member that passes MAX_SECRET_TEXT_BYTES, and no job starts', async () => {
    await workflow('attack-secret-bound', []);
    // 300 device passwords of 1,000 characters: 300,000 bytes of secret text; the 263rd passes the bound
    const hosts = Array.from({ length: 300 }, (_, i) => ({
      name: `r${i}`,
      gw_password: `${String(i).padStart(4, '0')}${'p'.repeat(996)}`,
    }));
    const res = await platform.http('POST', '/operations-manager/jobs/start', {
      token: admin,
      body: { workflow: 'attack-secret-bound', options: { variables: { hosts } } },
    });
    const member = `options.variables.hosts[${Math.floor(MAX_SECRET_TEXT_BYTES / 1000)}].gw_password`;
    expect(res).toMatchObject({
      status: 400,
      body: { code: 'VALIDATION_FAILED', message: expect.stringContaining(`${member} takes the secret text`), details: [{ member }] },
    });
    const jobsOf = async (): Promise<string> =>
      JSON.stringify((await platform.http('GET', '/operations-manager/jobs?equals[name]=attack-secret-bound', { token: admin })).body);
    expect(await jobsOf()).not.toContain('attack-secret-bound');
    // the same passwords, fewer of them, start (and the list above would name the job)
    expect((await ended(await started('attack-secret-bound', { hosts: hosts.slice(0, 200) }))).status).toBe('complete');
    expect(await jobsOf()).toContain('attack-secret-bound');
  });
});

describe('the secret text bound, for secrets a schema declares and for jobs no start route starts', () => {
  it('counts what the inputSchema declares secret, and bounds a job an endpoint trigger starts', async () => {
    const doc = workflowDocument('attack-declared-bound', { a1: task('newVariable', { name: 'a', value: 1 }) }, [
      ['workflow_start', 'a1'],
      ['a1', 'workflow_end'],
    ]);
    const inputSchema = { type: 'object', properties: { blob: { type: 'string', format: 'password' } } };
    expect(
      (await platform.http('POST', '/automation-studio/automations', { token: admin, body: { automation: { ...doc, inputSchema } } }))
        .status,
    ).toBe(200);
    // not a secret name: only the schema makes its 300,000 characters secret text
    const blob = 'b'.repeat(MAX_SECRET_TEXT_BYTES + 1);
    const res = await platform.http('POST', '/operations-manager/jobs/start', {
      token: admin,
      body: { workflow: 'attack-declared-bound', options: { variables: { blob } } },
    });
    expect(res).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED', details: [{ member: 'options.variables.blob' }] } });
    expect((await ended(await started('attack-declared-bound', { blob: 'b'.repeat(1000) }))).status).toBe('complete');

    const action = await automation({ name: 'attack-bound-endpoint', componentType: 'workflows', componentName: 'attack-declared-bound' });
    const trigger = await platform.http('POST', '/operations-manager/triggers', {
      token: admin,
      body: { name: 'attack-bound-endpoint', type: 'endpoint', actionId: action._id, routeName: 'attack-bound-endpoint', verb: 'POST' },
    });
    expect(trigger.status).toBeLessThan(300);
    const fired = await platform.http('POST', '/operations-manager/triggers/endpoint/attack-bound-endpoint', {
      token: admin,
      body: { blob },
    });
    expect(fired).toMatchObject({
      status: 400,
      body: { code: 'VALIDATION_FAILED', details: [{ member: expect.stringMatching(/blob$/) }] },
    });
    const jobs = await platform.http('GET', '/operations-manager/jobs?equals[name]=attack-declared-bound', { token: admin });
    expect((jobs.body as { total: number }).total).toBe(1);
  });
});

describe('references and job variables named after Object members', () => {
  it('keeps a job variable named __proto__ as a variable, which $var.job.__proto__ then reads', async () => {
    await workflow('attack-proto-variable', [], {
      a1: task('newVariable', { name: '__proto__', value: { polluted: 'yes' } }),
      a2: task('newVariable', { name: 'copy', value: '$var.job.__proto__' }),
      a3: task('newVariable', { name: 'ctor', value: '$var.job.constructor' }),
    });
    const done = await ended(await started('attack-proto-variable', {}));
    expect(done.status).toBe('complete');
    expect(Object.hasOwn(done.variables, '__proto__')).toBe(true);
    expect(done.variables.__proto__).toEqual({ polluted: 'yes' });
    expect(done.variables.copy).toEqual({ polluted: 'yes' });
    // nobody set constructor: the reference gives nothing, never Object
    expect(Object.hasOwn(done.variables, 'ctor')).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
