import { TEST_ADMIN, startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';

/** Idempotency-Key on POSTs, end to end: the gateway forwards it, the owning service keeps it in its store. */

let platform: TestPlatform;
let token: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  token = await platform.login();
  const created = await platform.http('POST', '/automation-studio/automations', {
    token,
    body: {
      automation: {
        name: 'idem-flow',
        type: 'automation',
        groups: [],
        tasks: { workflow_start: { name: 'workflow_start', groups: [] }, workflow_end: { name: 'workflow_end', groups: [] } },
        transitions: { workflow_start: { workflow_end: { state: 'success', type: 'standard' } }, workflow_end: {} },
      },
    },
  });
  expect(created.status).toBe(200);
});

afterAll(async () => {
  await platform.stop();
});

const post = (route: string, body: unknown, key: string, as = token) =>
  platform.http('POST', route, { token: as, body, headers: { 'idempotency-key': key } });

async function jobCount(): Promise<number> {
  const res = await platform.http('GET', '/operations-manager/jobs?limit=1&equals[name]=idem-flow', { token });
  expect(res.status).toBe(200);
  return (res.body as { total: number }).total;
}

describe('Idempotency-Key', () => {
  it('answers a retried job start with the first answer and starts no second job', async () => {
    const before = await jobCount();
    const first = await post('/workflow_engine/startJobWithOptions/idem-flow', { options: { description: 'once' } }, 'start-1');
    expect(first.status).toBe(200);
    const again = await post('/workflow_engine/startJobWithOptions/idem-flow', { options: { description: 'once' } }, 'start-1');
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(await jobCount()).toBe(before + 1);
  });

  it('starts one job when the same key arrives five times at once', async () => {
    const before = await jobCount();
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => post('/workflow_engine/startJobWithOptions/idem-flow', { options: {} }, 'start-burst')),
    );
    for (const a of answers) expect([200, 409]).toContain(a.status);
    const ids = new Set(answers.filter((a) => a.status === 200).map((a) => (a.body as { _id: string })._id));
    expect(ids.size).toBe(1);
    expect(await jobCount()).toBe(before + 1);
  });

  it('refuses the same key with another body with 422 and creates nothing', async () => {
    const first = await post('/user-management/groups', { group: { name: 'idem-a' } }, 'group-1');
    expect(first.status).toBe(200);
    const other = await post('/user-management/groups', { group: { name: 'idem-b' } }, 'group-1');
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    const list = await platform.http('GET', '/user-management/groups', { token });
    expect(JSON.stringify(list.body)).not.toContain('idem-b');
  });

  it('treats member order as the same request, and keys of different operations as different', async () => {
    const a = await post('/user-management/groups', { group: { name: 'idem-c', description: 'd' } }, 'group-2');
    const b = await post('/user-management/groups', { group: { description: 'd', name: 'idem-c' } }, 'group-2');
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.body).toEqual(a.body);
    // the same key on another operation is another key
    const start = await post('/workflow_engine/startJobWithOptions/idem-flow', { options: {} }, 'group-2');
    expect(start.status).toBe(200);
  });

  it('scopes keys to the caller: another account with the same key and body is a request of its own', async () => {
    const groups = await platform.http('GET', '/user-management/groups', { token });
    const admins = (groups.body as { results: { _id: string; name: string }[] }).results.find((g) => g.name === 'admins');
    expect(admins).toBeDefined();
    const account = await platform.http('POST', '/user-management/accounts', {
      token,
      body: { account: { username: 'idem-user', password: 'idem-user-password', groups: [admins?._id] } },
    });
    expect(account.status).toBe(200);
    const other = await platform.login('idem-user', 'idem-user-password');
    // the admin's key "group-1" created idem-a; the same key and body from another caller runs again (and meets the name)
    const theirs = await post('/user-management/groups', { group: { name: 'idem-a' } }, 'group-1', other);
    expect(theirs.status).toBe(409);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    // while the admin's own retry, from any session, is answered as the first time
    const second = await platform.login(TEST_ADMIN.username, TEST_ADMIN.password);
    const replay = await post('/user-management/groups', { group: { name: 'idem-a' } }, 'group-1', second);
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
  });

  it('refuses a malformed key with 400 and runs a failed request again on retry', async () => {
    const bad = await post('/user-management/groups', { group: { name: 'idem-d' } }, 'has space');
    expect(bad.status).toBe(400);
    const dup1 = await post('/user-management/groups', { group: { name: 'idem-a' } }, 'group-3');
    expect(dup1.status).toBe(409);
    const dup2 = await post('/user-management/groups', { group: { name: 'idem-a' } }, 'group-3');
    expect(dup2.status).toBe(409);
  });
});
