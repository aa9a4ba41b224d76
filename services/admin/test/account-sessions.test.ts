import { TEST_ADMIN, startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';

/**
 * An administrator's view of an account's sessions through HTTP: which are live, when and where
 * each began and was last used (a lost laptop, a leaked token), ending one or all of them at once,
 * and that no answer carries anything usable as a token. The gateway trusts X-Forwarded-For
 * (NAP_TRUST_PROXY), so each login comes from an address of the test's choosing.
 */
let platform: TestPlatform;
let admin: string;
let groupId: string;

type Session = { id: string; method: string; created: string; lastUsed: string; expires: string; address?: string; userAgent?: string };
type Answer = Awaited<ReturnType<TestPlatform['http']>>;

beforeAll(async () => {
  platform = await startTestPlatform({ config: { trustProxy: true } });
  admin = await platform.login();
  const group = await platform.http('POST', '/user-management/groups', {
    token: admin,
    body: { group: { name: 'session-people', roles: ['operations'] } },
  });
  groupId = (group.body as { data: { _id: string } }).data._id;
});

afterAll(async () => {
  await platform.stop();
});

async function account(username: string, password: string): Promise<string> {
  const res = await platform.http('POST', '/user-management/accounts', {
    token: admin,
    body: { account: { username, password, groups: [groupId] } },
  });
  expect(res.status).toBe(200);
  return (res.body as { data: { _id: string } }).data._id;
}

async function login(username: string, password: string, address: string, userAgent: string): Promise<string> {
  const res = await platform.http('POST', '/login', {
    body: { user: { username, password } },
    headers: { 'x-forwarded-for': address, 'user-agent': userAgent },
  });
  expect(res.status).toBe(200);
  return String(res.body).replace(/^"|"$/g, '');
}

async function oauth(username: string, password: string, address: string): Promise<string> {
  const res = await fetch(`${platform.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': address, 'user-agent': 'ansible-httpget' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: username, client_secret: password }).toString(),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

function sessions(id: string, token = admin): Promise<Answer> {
  return platform.http('GET', `/user-management/accounts/${id}/sessions`, { token });
}

async function live(id: string): Promise<Session[]> {
  const res = await sessions(id);
  expect(res.status).toBe(200);
  const body = res.body as { results: Session[]; total: number };
  expect(body.total).toBe(body.results.length);
  return body.results;
}

async function whoami(token: string): Promise<number> {
  return (await platform.http('GET', '/whoami', { token })).status;
}

describe('an account’s sessions', () => {
  it('lists each live session newest first, with how, when and where it began and when it was last used; never a token', async () => {
    const id = await account('sessions-1', 'sessions-password-1');
    expect(await live(id)).toEqual([]);
    const before = Date.now();
    const laptop = await login('sessions-1', 'sessions-password-1', '198.51.100.7', 'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0');
    const ci = await oauth('sessions-1', 'sessions-password-1', '198.51.100.8');
    expect(await whoami(laptop)).toBe(200);

    const listed = await live(id);
    expect(listed).toHaveLength(2);
    expect(listed.map((s) => s.method)).toEqual(['oauth', 'login']);
    expect(listed[0]).toMatchObject({ address: '198.51.100.8', userAgent: 'ansible-httpget' });
    expect(listed[1]).toMatchObject({ address: '198.51.100.7', userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0' });
    for (const s of listed) {
      expect(Date.parse(s.created)).toBeGreaterThanOrEqual(before - 1000);
      expect(Date.parse(s.lastUsed)).toBeGreaterThanOrEqual(Date.parse(s.created));
      expect(Date.parse(s.expires)).toBeGreaterThan(Date.now());
      expect(s.id).toMatch(/^[0-9a-f]{24}$/);
    }
    // nothing in the answer is a token or a part of one, and a reference is no token
    const text = JSON.stringify(listed);
    for (const token of [laptop, ci]) for (const part of token.split('.')) expect(text).not.toContain(part);
    expect(await whoami(listed[0]?.id ?? '')).toBe(401);
  });

  it('ends one session: its token is refused at once, the others go on', async () => {
    const id = await account('sessions-2', 'sessions-password-2');
    const lost = await login('sessions-2', 'sessions-password-2', '198.51.100.20', 'Mozilla/5.0 (Macintosh) Safari/17.0');
    const kept = await login('sessions-2', 'sessions-password-2', '198.51.100.21', 'Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0');
    expect(await whoami(lost)).toBe(200);
    const ref = (await live(id)).find((s) => s.address === '198.51.100.20')?.id ?? '';

    const ended = await platform.http('DELETE', `/user-management/accounts/${id}/sessions/${ref}`, { token: admin });
    expect(ended.status).toBe(200);
    expect(ended.body).toMatchObject({ status: 'success', message: expect.stringContaining('"sessions-2" ended') });
    expect(await whoami(lost)).toBe(401);
    expect(await whoami(kept)).toBe(200);
    expect((await live(id)).map((s) => s.address)).toEqual(['198.51.100.21']);

    // ended already, another account's, or no session at all: 404 naming the account
    for (const [account, session] of [
      [id, ref],
      [id, 'no-such-session'],
    ] as const) {
      const again = await platform.http('DELETE', `/user-management/accounts/${account}/sessions/${session}`, { token: admin });
      expect(again.status).toBe(404);
      expect(again.body).toMatchObject({ code: 'SESSION_NOT_FOUND', message: expect.stringContaining('"sessions-2"') });
    }
    const other = await account('sessions-2b', 'sessions-password-2b');
    const keptRef = (await live(id))[0]?.id ?? '';
    const crossed = await platform.http('DELETE', `/user-management/accounts/${other}/sessions/${keptRef}`, { token: admin });
    expect(crossed.status).toBe(404);
    expect(await whoami(kept)).toBe(200);
  });

  it('ends every session of the account at once; the person may log in again', async () => {
    const id = await account('sessions-3', 'sessions-password-3');
    const tokens = [
      await login('sessions-3', 'sessions-password-3', '198.51.100.30', 'curl/8.5.0'),
      await login('sessions-3', 'sessions-password-3', '198.51.100.31', 'python-requests/2.32'),
      await oauth('sessions-3', 'sessions-password-3', '198.51.100.32'),
    ];
    const bystander = await login(TEST_ADMIN.username, TEST_ADMIN.password, '198.51.100.39', 'curl/8.5.0');
    for (const token of tokens) expect(await whoami(token)).toBe(200);

    const ended = await platform.http('DELETE', `/user-management/accounts/${id}/sessions`, { token: admin });
    expect(ended.status).toBe(200);
    expect(ended.body).toMatchObject({ message: '3 sessions of "sessions-3" ended; its tokens are refused from now on' });
    for (const token of tokens) expect(await whoami(token)).toBe(401);
    expect(await whoami(bystander)).toBe(200);
    expect(await live(id)).toEqual([]);

    const none = await platform.http('DELETE', `/user-management/accounts/${id}/sessions`, { token: admin });
    expect(none.body).toMatchObject({ message: 'Account "sessions-3" had no live session' });
    const again = await login('sessions-3', 'sessions-password-3', '198.51.100.30', 'curl/8.5.0');
    expect(await whoami(again)).toBe(200);
    expect(await live(id)).toHaveLength(1);
  });

  it('is an administrator’s: others are refused, an unknown account is 404, and each ending is in the audit trail', async () => {
    const id = await account('sessions-4', 'sessions-password-4');
    const own = await login('sessions-4', 'sessions-password-4', '198.51.100.40', 'curl/8.5.0');
    expect((await sessions(id, own)).status).toBe(403);
    expect((await platform.http('DELETE', `/user-management/accounts/${id}/sessions`, { token: own })).status).toBe(403);
    const unknown = await sessions('no-such-account');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 'ACCOUNT_NOT_FOUND' });

    const ref = (await live(id))[0]?.id ?? '';
    expect((await platform.http('DELETE', `/user-management/accounts/${id}/sessions/${ref}`, { token: admin })).status).toBe(200);
    expect((await platform.http('DELETE', `/user-management/accounts/${id}/sessions`, { token: admin })).status).toBe(200);
    type Record = {
      operation: string;
      actor: { username?: string };
      target: { kind: string; id: string; name?: string };
      outcome: { status: number };
    };
    const audit = await platform.http('GET', '/audit?targetId=' + ref, { token: admin });
    expect((audit.body as { results: Record[] }).results).toEqual([
      expect.objectContaining({ operation: 'admin.endAccountSession', target: { kind: 'session', id: ref, name: 'sessions-4' } }),
    ]);
    const all = await platform.http('GET', `/audit?operation=admin.endAccountSessions&targetId=${id}`, { token: admin });
    // the refusal of the account's own try is there too
    const records = (all.body as { results: Record[] }).results.map((r) => [r.actor.username, r.outcome.status, r.target]);
    expect(records).toEqual(
      expect.arrayContaining([
        [TEST_ADMIN.username, 200, { kind: 'account', id, name: 'sessions-4' }],
        ['sessions-4', 403, { kind: 'account', id }],
      ]),
    );
    expect(records).toHaveLength(2);
  });

  it('does not keep expired sessions for ever: a login deletes those expired more than the grace ago, revoked or not', async () => {
    const id = await account('sessions-5', 'sessions-5-password');
    const store = platform.stores.get('admin');
    if (store === undefined) throw new Error('the admin store is not there');
    const records = store.collection<{ _id: string; accountId: string; expiresAt: number; revoked: boolean }>('sessions');
    const now = Date.now();
    const old = (sid: string, expiresAt: number, revoked: boolean) => ({
      _id: sid,
      accountId: id,
      username: 'sessions-5',
      method: 'oauth',
      created: new Date(expiresAt - 43_200_000).toISOString(),
      expiresAt,
      revoked,
    });
    // a script that fetched a token per run, yesterday; one just expired is left to the gateways' clocks
    await records.insertOne(old('expired-yesterday', now - 86_400_000, false));
    await records.insertOne(old('revoked-yesterday', now - 86_400_000, true));
    await records.insertOne(old('just-expired', now - 60_000, false));
    const token = await login('sessions-5', 'sessions-5-password', '198.51.100.50', 'curl/8');
    const kept = (await records.find({ accountId: id })).map((r) => r._id);
    expect(kept).not.toContain('expired-yesterday');
    expect(kept).not.toContain('revoked-yesterday');
    expect(kept).toContain('just-expired');
    expect(kept).toHaveLength(2);
    expect((await platform.http('GET', '/whoami', { token })).status).toBe(200);
    expect((await live(id)).map((s) => s.method)).toEqual(['login']);
  });
});
