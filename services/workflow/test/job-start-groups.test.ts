import type { JobDocument } from '@nap/contracts';
import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { task, workflowDocument } from '@nap/testing';

/**
 * The groups a start gives its job (`options.groups`, on both start routes) decide who sees the
 * job's variables and results: a caller who is not an admin gives only groups it is in, and its
 * empty list keeps the workflow's groups; a group that does not exist is refused by name; admins
 * give any groups that exist.
 */
let platform: TestPlatform;
let admin: string;
let teamA: string;
let teamB: string;
let alice: string;
let bob: string;

type Envelope<T> = { message: string; data: T; metadata: Record<string, unknown> };

async function group(name: string): Promise<string> {
  const res = await platform.http('POST', '/user-management/groups', { token: admin, body: { group: { name } } });
  if (res.status !== 200) throw new Error(`Creating group ${name}: ${res.status} ${JSON.stringify(res.body)}`);
  const id = (res.body as { data: { _id: string } }).data._id;
  await platform.http('PUT', `/user-management/groups/${id}/roles`, { token: admin, body: { roles: ['engineering'] } });
  return id;
}

async function account(username: string, groups: string[]): Promise<string> {
  const password = `${username}-password-1234`;
  const res = await platform.http('POST', '/user-management/accounts', { token: admin, body: { account: { username, password, groups } } });
  if (res.status !== 200) throw new Error(`Creating account ${username}: ${res.status} ${JSON.stringify(res.body)}`);
  return platform.login(username, password);
}

/** Starts `workflow` with `groups` by both routes: the answers, the operations manager's first. */
async function startBoth(token: string, workflow: string, groups: unknown) {
  const options = { groups, variables: { who: 'groups' } };
  return Promise.all([
    platform.http('POST', '/operations-manager/jobs/start', { token, body: { workflow, options } }),
    platform.http('POST', `/workflow_engine/startJobWithOptions/${workflow}`, { token, body: { options } }),
  ]);
}

/** The job of a start's answer, whichever route answered it. */
function jobOf(res: { status: number; body: unknown }): JobDocument {
  if (res.status !== 200) throw new Error(`Start: ${res.status} ${JSON.stringify(res.body)}`);
  // the operations manager answers an envelope, the workflow engine the job itself
  const body = res.body as Partial<Envelope<JobDocument>> & Partial<JobDocument>;
  return body.data !== undefined && body.metadata !== undefined ? body.data : (body as JobDocument);
}

beforeAll(async () => {
  platform = await startTestPlatform();
  admin = await platform.login();
  teamA = await group('start-groups-a');
  teamB = await group('start-groups-b');
  alice = await account('start-groups-alice', [teamA]);
  bob = await account('start-groups-bob', [teamB]);
  const greet = (name: string, groups: string[]) =>
    workflowDocument(
      name,
      { a1: task('stringConcat', { str: 'hello ', stringN: '$var.job.who' }) },
      [
        ['workflow_start', 'a1'],
        ['a1', 'workflow_end'],
      ],
      { groups },
    );
  for (const automation of [greet('start-groups-open', []), greet('start-groups-team-a', [teamA])]) {
    const res = await platform.http('POST', '/automation-studio/automations', { token: admin, body: { automation } });
    if (res.status !== 200) throw new Error(`Creating ${automation.name}: ${res.status} ${JSON.stringify(res.body)}`);
  }
}, 90_000);

afterAll(async () => {
  await platform?.stop();
});

it("refuses a caller's group it is not in, naming each such member, on both start routes", async () => {
  for (const res of await startBoth(alice, 'start-groups-open', [teamA, teamB, 'no-such-group'])) {
    expect(res).toMatchObject({
      status: 403,
      body: {
        code: 'GROUP_ACCESS_DENIED',
        details: [{ member: 'body.options.groups[1]' }, { member: 'body.options.groups[2]' }],
      },
    });
    expect((res.body as { message: string }).message).toContain(`"${teamB}"`);
  }
  // nothing was started
  const jobs = await platform.http('GET', '/operations-manager/jobs?equals[name]=start-groups-open', { token: admin });
  expect((jobs.body as { total: number }).total).toBe(0);
});

it("shares a caller's job with its own groups", async () => {
  for (const res of await startBoth(alice, 'start-groups-open', [teamA])) expect(jobOf(res).groups).toEqual([teamA]);
});

it("keeps the workflow's groups when a caller who is not an admin gives an empty list, so that the job stays hidden from other teams", async () => {
  for (const res of await startBoth(alice, 'start-groups-team-a', [])) {
    const job = jobOf(res);
    expect(job.groups).toEqual([teamA]);
    expect(await platform.http('GET', `/operations-manager/jobs/${job._id}`, { token: bob })).toMatchObject({
      status: 403,
      body: { code: 'GROUP_ACCESS_DENIED' },
    });
  }
  // a workflow without groups: the empty list gives what it gives
  for (const res of await startBoth(bob, 'start-groups-open', [])) expect(jobOf(res).groups).toEqual([]);
});

it('refuses a group that does not exist, naming the member, to an admin too', async () => {
  for (const res of await startBoth(admin, 'start-groups-open', [teamB, 'no-such-group', teamB, 'nor-this'])) {
    expect(res).toMatchObject({
      status: 400,
      body: {
        code: 'VALIDATION_FAILED',
        details: [{ member: 'body.options.groups[1]' }, { member: 'body.options.groups[3]' }],
      },
    });
    expect((res.body as { message: string }).message).toContain('"no-such-group"');
  }
});

it('lets an admin give any groups that exist, an empty list included, once each', async () => {
  for (const res of await startBoth(admin, 'start-groups-team-a', [teamB, teamB])) {
    const job = jobOf(res);
    expect(job.groups).toEqual([teamB]);
    expect((await platform.http('GET', `/operations-manager/jobs/${job._id}`, { token: bob })).status).toBe(200);
  }
  for (const res of await startBoth(admin, 'start-groups-team-a', [])) expect(jobOf(res).groups).toEqual([]);
});

it('finds a group past the first page of the group directory, for a start and for a gbac', async () => {
  // the directory answers 500 groups a page, sorted by name: this one comes after 500 others
  for (let first = 0; first < 500; first += 25)
    await Promise.all(
      Array.from({ length: 25 }, async (_, i) => {
        const name = `start-groups-many-${String(first + i).padStart(3, '0')}`;
        const res = await platform.http('POST', '/user-management/groups', { token: admin, body: { group: { name } } });
        if (res.status !== 200) throw new Error(`Creating group ${name}: ${res.status} ${JSON.stringify(res.body)}`);
      }),
    );
  const last = await group('zz-start-groups-last');
  for (const res of await startBoth(admin, 'start-groups-open', [last])) expect(jobOf(res).groups).toEqual([last]);
  const automation = await platform.http('POST', '/operations-manager/automations', {
    token: admin,
    body: { automation: { name: 'start-groups-last-gbac', gbac: { read: [last], write: [] } } },
  });
  expect(automation.status).toBe(200);
}, 120_000);
