import { eventually } from '@nap/testing';
import { TEST_ADMIN, startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';

/**
 * Login protection through HTTP: failed logins counted per username and per source address, 429
 * LOGIN_THROTTLED with Retry-After, the wait doubling up to 15 minutes, a success resetting the
 * username's count, an admin's unlock, the same rules for /login, /oauth/token and Basic, and
 * PUT /whoami/password. The admin service's throttle clock is moved by the test rather than waited
 * out; the gateway trusts X-Forwarded-For (NAP_TRUST_PROXY), so each test comes from its own address.
 */

let platform: TestPlatform;
let admin: string;
let clock = Date.now();
let usersGroup: string;

const MINUTE_MS = 60_000;

beforeAll(async () => {
  // hundreds of logins: passwords hashed at a low scrypt cost, which the logins' outcomes do not depend on
  platform = await startTestPlatform({ config: { trustProxy: true }, admin: { now: () => clock, scryptCost: 1024 } });
  admin = await platform.login();
  const group = await platform.http('POST', '/user-management/groups', { token: admin, body: { group: { name: 'login-users' } } });
  usersGroup = (group.body as { data: { _id: string } }).data._id;
  await platform.http('PUT', `/user-management/groups/${usersGroup}/roles`, { token: admin, body: { roles: ['operations'] } });
});

afterAll(async () => {
  await platform.stop();
});

type Answer = Awaited<ReturnType<TestPlatform['http']>>;

/** An account in the `operations` group; answers its id. */
async function account(username: string, password: string): Promise<string> {
  const res = await platform.http('POST', '/user-management/accounts', {
    token: admin,
    body: { account: { username, password, groups: [usersGroup] } },
  });
  expect(res.status).toBe(200);
  return (res.body as { data: { _id: string } }).data._id;
}

function login(username: string, password: string, address: string): Promise<Answer> {
  return platform.http('POST', '/login', { body: { user: { username, password } }, headers: { 'x-forwarded-for': address } });
}

async function oauth(username: string, password: string, address: string): Promise<Answer> {
  const res = await fetch(`${platform.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': address },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: username, client_secret: password }).toString(),
  });
  return { status: res.status, body: (await res.json()) as unknown, headers: res.headers };
}

function basic(username: string, password: string, route = '/whoami'): Promise<Answer> {
  return platform.http('GET', route, { headers: { authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` } });
}

/** `count` logins with a wrong password, each answered 401. */
async function failLogins(username: string, address: string, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) {
    const res = await login(username, `wrong-password-${i}`, address);
    expect({ attempt: i + 1, status: res.status }).toEqual({ attempt: i + 1, status: 401 });
  }
}

function expectThrottled(res: Answer, retryAfterSeconds: number, scope: 'account' | 'address' = 'account'): void {
  expect(res.status).toBe(429);
  expect(res.headers.get('retry-after')).toBe(String(retryAfterSeconds));
  expect(res.body).toMatchObject({ status: 'error', code: 'LOGIN_THROTTLED', details: { retryAfterSeconds, scope } });
}

describe('per username', () => {
  it('answers 429 with Retry-After after 5 failures, the right password included, from any address', async () => {
    await account('throttled-1', 'right-password-1');
    await failLogins('throttled-1', '203.0.113.1', 5);
    const right = await login('throttled-1', 'right-password-1', '203.0.113.1');
    expectThrottled(right, 60);
    expect((right.body as { message: string }).message).toMatch(
      /Too many failed logins for username "throttled-1"; try again in 60 seconds/,
    );
    expectThrottled(await login('throttled-1', 'right-password-1', '198.51.100.1'), 60);

    // attempts that wait are not counted: once the minute has passed, the right password works
    for (let i = 0; i < 5; i += 1) expect((await login('throttled-1', 'still-wrong', '203.0.113.1')).status).toBe(429);
    clock += 30_000;
    expectThrottled(await login('throttled-1', 'right-password-1', '203.0.113.1'), 30);
    clock += 30_000;
    expect((await login('throttled-1', 'right-password-1', '203.0.113.1')).status).toBe(200);
  });

  it('doubles the wait with each further failure up to 15 minutes, and a success resets the count', async () => {
    await account('throttled-2', 'right-password-2');
    await failLogins('throttled-2', '203.0.113.2', 5);
    expectThrottled(await login('throttled-2', 'right-password-2', '203.0.113.2'), 60);
    for (const [waited, next] of [
      [60, 120],
      [120, 240],
      [240, 480],
      [480, 900],
      [900, 900],
    ] as const) {
      clock += waited * 1000;
      expect((await login('throttled-2', 'wrong-again', '203.0.113.2')).status).toBe(401);
      expectThrottled(await login('throttled-2', 'right-password-2', '203.0.113.2'), next);
    }
    clock += 900_000;
    expect((await login('throttled-2', 'right-password-2', '203.0.113.2')).status).toBe(200);
    // counted from nothing again: four failures and a success, four more and a success
    for (let round = 0; round < 2; round += 1) {
      await failLogins('throttled-2', '203.0.113.2', 4);
      expect((await login('throttled-2', 'right-password-2', '203.0.113.2')).status).toBe(200);
    }
  });

  it('lets exactly 5 of 30 wrong passwords sent at once be checked, the rest answered 429', async () => {
    await account('throttled-burst', 'right-password-burst');
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => login('throttled-burst', `burst-guess-${i}`, `203.0.113.${100 + (i % 10)}`)),
    );
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses.filter((status) => status === 401)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(25);
    expectThrottled(await login('throttled-burst', 'right-password-burst', '203.0.113.99'), 60);
  });

  it('forgets failures after 15 minutes without one', async () => {
    await account('throttled-3', 'right-password-3');
    await failLogins('throttled-3', '203.0.113.3', 4);
    clock += 15 * MINUTE_MS + 1000;
    await failLogins('throttled-3', '203.0.113.3', 4);
    expect((await login('throttled-3', 'right-password-3', '203.0.113.3')).status).toBe(200);
  });

  it('lets an admin unlock an account at once; others may not, and an unknown account is 404', async () => {
    const id = await account('throttled-4', 'right-password-4');
    await account('bystander-4', 'bystander-password');
    await failLogins('throttled-4', '203.0.113.4', 5);
    expectThrottled(await login('throttled-4', 'right-password-4', '203.0.113.4'), 60);

    const bystander = await platform.login('bystander-4', 'bystander-password');
    const refused = await platform.http('POST', `/user-management/accounts/${id}/unlock`, { token: bystander });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'FORBIDDEN' });
    const unknown = await platform.http('POST', '/user-management/accounts/no-such-account/unlock', { token: admin });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 'ACCOUNT_NOT_FOUND' });

    const unlocked = await platform.http('POST', `/user-management/accounts/${id}/unlock`, { token: admin });
    expect(unlocked.status).toBe(200);
    expect(unlocked.body).toMatchObject({ status: 'success', message: expect.stringContaining('may log in again at once') });
    expect((await login('throttled-4', 'right-password-4', '203.0.113.4')).status).toBe(200);
    const again = await platform.http('POST', `/user-management/accounts/${id}/unlock`, { token: admin });
    expect(again.body).toMatchObject({ message: expect.stringContaining('had no failed logins counted') });
    // the account's audit by name holds its unlocks, as it holds its other changes
    const audited = await platform.http('GET', '/audit?operation=admin.unlockAccount&equals[target.name]=throttled-4', { token: admin });
    expect((audited.body as { results: { target?: unknown }[] }).results.map((r) => r.target)).toEqual([
      { kind: 'account', id, name: 'throttled-4' },
      { kind: 'account', id, name: 'throttled-4' },
    ]);
  });

  it('shows an administrator, on the account and in the list, its failed logins, until when it is locked and its last sign-in', async () => {
    const id = await account('throttled-6', 'right-password-6');
    type Seen = { failedLogins: number; lockedUntil?: string; lastLogin?: string; lastUpdated: string };
    const seen = async (): Promise<Seen> => (await platform.http('GET', `/user-management/accounts/${id}`, { token: admin })).body as Seen;
    const listed = async (): Promise<Seen | undefined> => {
      const res = await platform.http('GET', '/user-management/accounts?equals=throttled-6&equalsField=username', { token: admin });
      return (res.body as { results: Seen[] }).results[0];
    };
    const fresh = await seen();
    expect(fresh).toMatchObject({ failedLogins: 0 });
    expect(fresh).not.toHaveProperty('lockedUntil');
    expect(fresh).not.toHaveProperty('lastLogin');

    await failLogins('throttled-6', '203.0.113.6', 3);
    expect(await seen()).toMatchObject({ failedLogins: 3 });
    expect(await seen()).not.toHaveProperty('lockedUntil');
    await failLogins('throttled-6', '203.0.113.6', 2);
    const locked = await seen();
    expect(locked).toMatchObject({ failedLogins: 5, lockedUntil: new Date(clock + 60_000).toISOString() });
    expect(await listed()).toEqual(locked);

    // the wait over, the count stays (a further failure would make it wait twice as long), the lock is gone
    clock += 61_000;
    expect(await seen()).toMatchObject({ failedLogins: 5 });
    expect(await seen()).not.toHaveProperty('lockedUntil');

    const at = new Date(clock).toISOString();
    expect((await login('throttled-6', 'right-password-6', '203.0.113.6')).status).toBe(200);
    const signedIn = await seen();
    expect(signedIn).toMatchObject({ failedLogins: 0, lastLogin: at, lastUpdated: fresh.lastUpdated });
    expect(await listed()).toEqual(signedIn);

    // Basic and /oauth/token are sign-ins too; checking a password to change it is not
    clock += 1000;
    expect((await basic('throttled-6', 'right-password-6')).status).toBe(200);
    expect((await seen()).lastLogin).toBe(new Date(clock).toISOString());
    clock += 1000;
    expect((await oauth('throttled-6', 'right-password-6', '203.0.113.6')).status).toBe(200);
    const viaOauth = (await seen()).lastLogin;
    expect(viaOauth).toBe(new Date(clock).toISOString());
    clock += 1000;
    const token = await platform.login('throttled-6', 'right-password-6');
    const lastSignIn = (await seen()).lastLogin;
    clock += 1000;
    const changed = await platform.http('PUT', '/whoami/password', {
      token,
      body: { currentPassword: 'right-password-6', newPassword: 'right-password-6b' },
    });
    expect(changed.status).toBe(200);
    expect((await seen()).lastLogin).toBe(lastSignIn);

    // the accounts that have not signed in for longest come first
    const review = await platform.http('GET', '/user-management/accounts?sort=lastLogin&order=1', { token: admin });
    expect(review.status).toBe(200);
    const order = (review.body as { results: { username: string; lastLogin?: string }[] }).results.map((a) => a.lastLogin ?? '');
    expect(order).toEqual([...order].sort());
  });

  it('answers a username of no account exactly as one of an account, throttled included', async () => {
    await account('throttled-5', 'right-password-5');
    const words = async (username: string, address: string) => {
      const answers: string[] = [];
      for (let i = 0; i < 6; i += 1) {
        const res = await login(username, `wrong-password-${i}`, address);
        answers.push(
          `${res.status} ${res.headers.get('retry-after') ?? '-'} ${(res.body as { message: string }).message.replace(username, 'X')}`,
        );
      }
      return answers;
    };
    const known = await words('throttled-5', '203.0.113.5');
    const unknown = await words('nobody-here-5', '203.0.113.6');
    expect(unknown).toEqual(known);
    expect(known[5]).toMatch(/^429 60 Too many failed logins for username "X"/);
  });

  it('answers the right password of an inactive account as a wrong one: no answer tells a guesser it found the password', async () => {
    const id = await account('inactive-6', 'right-password-6');
    expect((await platform.http('PATCH', `/authorization/accounts/${id}`, { token: admin, body: { inactive: true } })).status).toBe(200);
    const answerTo = async (password: string, how: 'login' | 'oauth' | 'basic') => {
      const res =
        how === 'login'
          ? await login('inactive-6', password, '203.0.113.66')
          : how === 'oauth'
            ? await oauth('inactive-6', password, '203.0.113.66')
            : await basic('inactive-6', password);
      return `${res.status} ${JSON.stringify({ ...(res.body as Record<string, unknown>), requestId: undefined })}`;
    };
    for (const how of ['login', 'oauth', 'basic'] as const) {
      const wrong = await answerTo('wrong-password-6', how);
      expect(wrong).toMatch(/^401 .*The username or password of \\"inactive-6\\" is wrong/);
      expect(await answerTo('right-password-6', how)).toBe(wrong);
      // each counted: the account is not in use
      await platform.http('POST', `/user-management/accounts/${id}/unlock`, { token: admin });
    }
  });
});

describe('per address', () => {
  it('throttles an address after 50 failures across usernames, whatever the username next, and no other address', async () => {
    const sprayer = '203.0.113.50';
    for (let i = 0; i < 50; i += 1) expect((await login(`spray-${i}`, 'Summer2024!', sprayer)).status).toBe(401);
    expectThrottled(await login(TEST_ADMIN.username, TEST_ADMIN.password, sprayer), 60, 'address');
    expectThrottled(await oauth('spray-new', 'Summer2024!', sprayer), 60, 'address');
    // the proxy's own entry is the address: what the client put before it does not get it out
    const disguised = await platform.http('POST', '/login', {
      body: { user: TEST_ADMIN },
      headers: { 'x-forwarded-for': `198.51.100.77, ${sprayer}` },
    });
    expectThrottled(disguised, 60, 'address');
    // and the audit trail records the same address, not the one the client claimed
    const requestId = (disguised.body as { requestId: string }).requestId;
    const records = await platform.http('GET', `/audit?equals[requestId]=${requestId}`, { token: admin });
    expect(records.status).toBe(200);
    expect((records.body as { results: { source?: { address?: string } }[] }).results.map((r) => r.source?.address)).toEqual([sprayer]);
    expect((await login(TEST_ADMIN.username, TEST_ADMIN.password, '203.0.113.51')).status).toBe(200);
  });

  it('counts an IPv6 sprayer by its /64, which one host holds whole: a new address of it every try does not get it out', async () => {
    // each try from another address of 2001:db8:5:6::/64, written as clients and proxies write them
    const of64 = (i: number) => (i % 2 === 0 ? `2001:db8:5:6:${i.toString(16)}::1` : `2001:0DB8:0005:0006:0:0:${i.toString(16)}:2`);
    for (let i = 0; i < 50; i += 1) expect((await login(`spray6-${i}`, 'Summer2024!', of64(i))).status).toBe(401);
    expectThrottled(await login(TEST_ADMIN.username, TEST_ADMIN.password, '2001:db8:5:6:ffff:ffff:ffff:ffff'), 60, 'address');
    // another /64, and IPv4 clients written as IPv4-mapped IPv6, are other counts
    expect((await login(TEST_ADMIN.username, TEST_ADMIN.password, '2001:db8:5:7::1')).status).toBe(200);
    expect((await login(TEST_ADMIN.username, TEST_ADMIN.password, '::ffff:203.0.113.70')).status).toBe(200);
  });

  it('counts an IPv4 client written as IPv4-mapped IPv6 (a dual-stack listener) as that IPv4 address, never as one /64 of all of them', async () => {
    for (let i = 0; i < 50; i += 1) expect((await login(`spray-mapped-${i}`, 'Summer2024!', '::ffff:203.0.113.80')).status).toBe(401);
    expectThrottled(await login(TEST_ADMIN.username, TEST_ADMIN.password, '203.0.113.80'), 60, 'address');
    expect((await login(TEST_ADMIN.username, TEST_ADMIN.password, '::ffff:203.0.113.81')).status).toBe(200);
  });

  it('does not count logins that succeed against their address', async () => {
    const office = '203.0.113.60';
    await account('office-user', 'office-password-1');
    for (let i = 0; i < 49; i += 1) expect((await login(`typo-${i}`, 'whatever-it-was', office)).status).toBe(401);
    for (let i = 0; i < 3; i += 1) expect((await login('office-user', 'office-password-1', office)).status).toBe(200);
    expect((await login('typo-last', 'whatever-it-was', office)).status).toBe(401);
    expectThrottled(await login('office-user', 'office-password-1', office), 60, 'address');
  });
});

describe('every way in', () => {
  it('counts /oauth/token failures with /login ones and throttles both', async () => {
    await account('throttled-oauth', 'right-password-o');
    for (let i = 0; i < 3; i += 1) expect((await oauth('throttled-oauth', `wrong-${i}`, '203.0.113.7')).status).toBe(401);
    await failLogins('throttled-oauth', '203.0.113.7', 2);
    expectThrottled(await oauth('throttled-oauth', 'right-password-o', '203.0.113.7'), 60);
    expectThrottled(await login('throttled-oauth', 'right-password-o', '203.0.113.7'), 60);
  });

  it('counts every wrong Basic credential and throttles Basic, remembered credentials included', async () => {
    await account('throttled-basic', 'right-password-b');
    // the gateway now remembers these credentials for a while
    expect((await basic('throttled-basic', 'right-password-b')).status).toBe(200);
    for (let i = 0; i < 5; i += 1) expect((await basic('throttled-basic', 'the-same-wrong-one')).status).toBe(401);
    const throttled = await eventually(
      'the remembered Basic credentials refused',
      async () => {
        const res = await basic('throttled-basic', 'right-password-b');
        return res.status !== 200 && res;
      },
      { timeoutMs: 5_000, intervalMs: 50 },
    );
    expectThrottled(throttled, 60);
    expectThrottled(await login('throttled-basic', 'right-password-b', '203.0.113.8'), 60);
  });
});

describe('live settings of the active profile', () => {
  it('applies the thresholds and the password rules of the active profile at once', async () => {
    const created = await platform.http('POST', '/profiles', {
      token: admin,
      body: {
        properties: {
          id: 'strict-logins',
          authenticationProps: { passwordRules: { minLength: 16 }, loginThrottle: { accountFailures: 2, firstWaitSeconds: 30 } },
        },
      },
    });
    expect(created.status).toBe(200);
    const switched = await platform.http('PUT', '/profiles/strict-logins/active', { token: admin });
    expect(switched.body).toMatchObject({
      metadata: { activeSync: true },
      applied: expect.arrayContaining(['authenticationProps.loginThrottle', 'authenticationProps.passwordRules']),
    });
    try {
      await account('strict-user', 'sixteen-chars-pw');
      await failLogins('strict-user', '203.0.113.9', 2);
      expectThrottled(await login('strict-user', 'sixteen-chars-pw', '203.0.113.9'), 30);
      const short = await platform.http('POST', '/user-management/accounts', {
        token: admin,
        body: { account: { username: 'short-pw', password: 'fifteen-chars-p' } },
      });
      expect(short.status).toBe(400);
      expect(short.body).toMatchObject({
        code: 'VALIDATION_FAILED',
        message: expect.stringMatching(/^body\.account\.password is 15 characters long; at least 16 are needed/),
      });
      expect((await platform.http('GET', '/user-management/accounts?equals[username]=short-pw', { token: admin })).body).toMatchObject({
        total: 0,
      });
    } finally {
      await platform.http('PUT', '/profiles/default/active', { token: admin });
    }
  });

  it('asks 12 characters of a new password by default, of an admin setting one too', async () => {
    const id = await account('rules-user', 'rules-password-1');
    const short = await platform.http('PUT', `/user-management/accounts/${id}/password`, {
      token: admin,
      body: { password: 'eleven-char' },
    });
    expect(short.status).toBe(400);
    expect(short.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ member: 'body.password' }] });
    expect(
      (await platform.http('PUT', `/user-management/accounts/${id}/password`, { token: admin, body: { password: 'twelve-chars' } })).status,
    ).toBe(200);
  });
});

describe('PUT /whoami/password', () => {
  it('changes the caller’s own password, ends the account’s other sessions and keeps this one', async () => {
    await account('changer', 'changer-password-1');
    const mine = await platform.login('changer', 'changer-password-1');
    const other = await platform.login('changer', 'changer-password-1');
    expect((await platform.http('GET', '/whoami', { token: other })).status).toBe(200);

    const changed = await platform.http('PUT', '/whoami/password', {
      token: mine,
      body: { currentPassword: 'changer-password-1', newPassword: 'changer-password-2' },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ status: 'success', message: expect.stringContaining('other sessions are ended') });
    expect(JSON.stringify(changed.body)).not.toContain('changer-password');
    expect((await platform.http('GET', '/whoami', { token: mine })).status).toBe(200);
    const ended = await eventually('the other session ended', async () => {
      const res = await platform.http('GET', '/whoami', { token: other });
      return res.status !== 200 && res.status;
    });
    expect(ended).toBe(401);
    expect((await login('changer', 'changer-password-1', '203.0.113.10')).status).toBe(401);
    expect((await login('changer', 'changer-password-2', '203.0.113.10')).status).toBe(200);
  });

  it('refuses a wrong current password with 403 and counts it as a failed login', async () => {
    const id = await account('guesser', 'guesser-password-1');
    const token = await platform.login('guesser', 'guesser-password-1');
    for (let i = 0; i < 5; i += 1) {
      const res = await platform.http('PUT', '/whoami/password', {
        token,
        body: { currentPassword: `guess-${i}`, newPassword: 'guesser-password-2' },
      });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'CURRENT_PASSWORD_WRONG' });
    }
    // the password is not checked any more, not even the right one, here or at /login
    const sixth = await platform.http('PUT', '/whoami/password', {
      token,
      body: { currentPassword: 'guesser-password-1', newPassword: 'guesser-password-2' },
    });
    expectThrottled(sixth, 60);
    expectThrottled(await login('guesser', 'guesser-password-1', '203.0.113.11'), 60);
    await platform.http('POST', `/user-management/accounts/${id}/unlock`, { token: admin });
    expect((await login('guesser', 'guesser-password-1', '203.0.113.11')).status).toBe(200);
  });

  it('enforces the password rules, naming body.newPassword, before the current password is checked', async () => {
    await account('short-changer', 'short-changer-pw');
    const token = await platform.login('short-changer', 'short-changer-pw');
    const res = await platform.http('PUT', '/whoami/password', {
      token,
      body: { currentPassword: 'short-changer-pw', newPassword: 'only-eleven' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ member: 'body.newPassword', message: expect.stringContaining('at least 12') }],
    });
    // shorter still: the same rule in the same words, not the schema's bare floor
    const tiny = await platform.http('PUT', '/whoami/password', { token, body: { currentPassword: 'x', newPassword: 'short' } });
    expect(tiny.status).toBe(400);
    expect(tiny.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [
        {
          member: 'body.newPassword',
          message: expect.stringMatching(/^is 5 characters long; at least 12 are needed$/),
        },
      ],
    });
    const admin = await platform.login();
    const created = await platform.http('POST', '/user-management/accounts', {
      token: admin,
      body: { account: { username: 'short-created', password: 'tiny' } },
    });
    expect(created.body).toMatchObject({
      details: [
        {
          member: 'body.account.password',
          message: expect.stringMatching(/^is 4 characters long; at least 12 are needed$/),
        },
      ],
    });
    const mine = (await platform.http('GET', '/whoami', { token })).body as { _id: string };
    const set = await platform.http('PUT', `/user-management/accounts/${mine._id}/password`, { token: admin, body: { password: 'tiny' } });
    expect(set.body).toMatchObject({
      details: [{ member: 'body.password', message: expect.stringMatching(/at least 12 are needed$/) }],
    });
    expect(
      (await platform.http('PUT', '/whoami/password', { body: { currentPassword: 'x', newPassword: 'long-enough-password' } })).status,
    ).toBe(401);
    expect((await login('short-changer', 'short-changer-pw', '203.0.113.12')).status).toBe(200);
  });

  it('lets a Basic caller change their password too', async () => {
    await account('basic-changer', 'basic-changer-pw1');
    const res = await platform.http('PUT', '/whoami/password', {
      headers: { authorization: `Basic ${Buffer.from('basic-changer:basic-changer-pw1').toString('base64')}` },
      body: { currentPassword: 'basic-changer-pw1', newPassword: 'basic-changer-pw2' },
    });
    expect(res.status).toBe(200);
    expect(
      await eventually(
        'the new password accepted over Basic',
        async () => (await basic('basic-changer', 'basic-changer-pw2')).status === 200,
      ),
    ).toBe(true);
  });
});
