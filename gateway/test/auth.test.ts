import { eventually } from '@nap/testing';
import { startTestPlatform, TEST_ADMIN } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';

let platform: TestPlatform;
let adminToken: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  adminToken = await platform.login();
});

afterAll(async () => {
  await platform.stop();
});

const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;

describe('ways in', () => {
  it('logs in with a nested body and answers the bare token as text/plain plus an HttpOnly cookie', async () => {
    const res = await fetch(`${platform.url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: TEST_ADMIN }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const token = await res.text();
    expect(token).toMatch(/^nap1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/);
    const cookie = res.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(new RegExp(`^token=${String(token)};`));
    expect(cookie).toMatch(/HttpOnly/i);
  });

  it('logs in with a flat body', async () => {
    const res = await platform.http('POST', '/login', { body: TEST_ADMIN });
    expect(res.status).toBe(200);
    expect(typeof res.body).toBe('string');
  });

  it('accepts the token as Bearer, ?token=, cookie, and Basic credentials', async () => {
    const viaBearer = await platform.http('GET', '/whoami', { token: adminToken });
    const viaQuery = await platform.http('GET', `/whoami?token=${encodeURIComponent(adminToken)}`);
    const viaCookie = await platform.http('GET', '/whoami', { headers: { cookie: `other=1; token=${adminToken}` } });
    const viaBasic = await platform.http('GET', '/whoami', { headers: { authorization: basic(TEST_ADMIN.username, TEST_ADMIN.password) } });
    for (const res of [viaBearer, viaQuery, viaCookie, viaBasic]) {
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ username: 'admin', roles: ['admin'] });
      expect(JSON.stringify(res.body)).not.toMatch(/password/i);
    }
  });

  it('issues OAuth client-credentials tokens from a form body and refuses JSON there with 415', async () => {
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: TEST_ADMIN.username,
      client_secret: TEST_ADMIN.password,
    });
    const res = await fetch(`${platform.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { access_token: string; token_type: string; expires_in: number };
    expect(body.token_type).toBe('Bearer');
    expect(body.expires_in).toBeGreaterThan(0);
    expect((await platform.http('GET', '/whoami', { token: body.access_token })).status).toBe(200);

    const json = await platform.http('POST', '/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: 'admin', client_secret: TEST_ADMIN.password },
    });
    expect(json.status).toBe(415);
    expect(json.body).toMatchObject({ status: 'error', code: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  it('takes OAuth client credentials from Authorization: Basic (client_secret_basic, RFC 6749 §2.3.1), form-encoded first', async () => {
    const tokenWith = (authorization: string, form: Record<string, string>) =>
      fetch(`${platform.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization },
        body: new URLSearchParams(form).toString(),
      });
    const grant = { grant_type: 'client_credentials' };
    const res = await tokenWith(basic(TEST_ADMIN.username, TEST_ADMIN.password), grant);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { access_token: string; token_type: string };
    expect(body.token_type).toBe('Bearer');
    expect(await platform.http('GET', '/whoami', { token: body.access_token })).toMatchObject({ status: 200, body: { username: 'admin' } });
    // the same client id in the form is allowed; the audit trail names the account, as for the form's members
    expect((await tokenWith(basic(TEST_ADMIN.username, TEST_ADMIN.password), { ...grant, client_id: TEST_ADMIN.username })).status).toBe(
      200,
    );
    const logins = await platform.http('GET', '/audit?operation=admin.oauthToken&outcome=success&limit=2', { token: adminToken });
    expect((logins.body as { results: unknown[] }).results).toEqual([
      expect.objectContaining({ actor: expect.objectContaining({ username: 'admin', auth: 'oauth' }) }),
      expect.objectContaining({ actor: expect.objectContaining({ username: 'admin', auth: 'oauth' }) }),
    ]);

    // a username holding a colon can only come this way form-encoded, as the RFC says clients send it
    const group = await platform.http('POST', '/user-management/groups', { token: adminToken, body: { group: { name: 'oauth-basic' } } });
    const groupId = (group.body as { data: { _id: string } }).data._id;
    await platform.http('PUT', `/user-management/groups/${groupId}/roles`, { token: adminToken, body: { roles: ['apiread'] } });
    const secret = 'a secret+with %25 and: colon';
    const created = await platform.http('POST', '/user-management/accounts', {
      token: adminToken,
      body: { account: { username: 'svc:reports', password: secret, groups: [groupId] } },
    });
    expect(created.status).toBe(200);
    const encoded = (text: string) => encodeURIComponent(text).replace(/%20/g, '+');
    const service = await tokenWith(`Basic ${Buffer.from(`${encoded('svc:reports')}:${encoded(secret)}`).toString('base64')}`, grant);
    expect(service.status).toBe(200);

    const wrong = await tokenWith(basic(TEST_ADMIN.username, 'not-the-password'), grant);
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ code: 'UNAUTHENTICATED' });
    // both ways alike (some libraries send both) is one client; two different secrets are refused
    const both = { ...grant, client_id: TEST_ADMIN.username, client_secret: TEST_ADMIN.password };
    expect((await tokenWith(basic(TEST_ADMIN.username, TEST_ADMIN.password), both)).status).toBe(200);
    const twice = await tokenWith(basic(TEST_ADMIN.username, TEST_ADMIN.password), { ...both, client_secret: 'another-secret' });
    expect(twice.status).toBe(400);
    expect(await twice.json()).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ member: 'body.client_secret' }] });
    const other = await tokenWith(basic(TEST_ADMIN.username, TEST_ADMIN.password), { ...grant, client_id: 'someone-else' });
    expect(other.status).toBe(400);
    expect(await other.json()).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ member: 'body.client_id' }] });
  });

  it('tells the session and ends it on logout, for every gateway view of it', async () => {
    const token = await platform.login();
    const session = await platform.http('GET', '/mySession', { token });
    expect(session.status).toBe(200);
    expect(session.body).toMatchObject({ method: 'login', account: { username: 'admin' } });
    expect((await platform.http('GET', '/logout', { token })).status).toBe(200);
    const after = await platform.http('GET', '/whoami', { token });
    expect(after.status).toBe(401);
    expect(after.body).toMatchObject({ code: 'UNAUTHENTICATED' });
  });
});

describe('ways to fail', () => {
  it('answers 401 without credentials, with a wrong password, a forged or malformed token', async () => {
    const none = await platform.http('GET', '/whoami');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/Bearer/);
    expect((await platform.http('POST', '/login', { body: { user: { username: 'admin', password: 'wrong-password' } } })).status).toBe(401);
    expect((await platform.http('POST', '/login', { body: { user: { username: 'nobody', password: 'whatever-it-is' } } })).status).toBe(
      401,
    );
    expect((await platform.http('GET', '/whoami', { headers: { authorization: basic('admin', 'wrong') } })).status).toBe(401);
    expect((await platform.http('GET', '/whoami', { token: 'not-a-token' })).status).toBe(401);
    const [prefix, payload, signature] = adminToken.split('.');
    const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString()) as Record<string, unknown>;
    const forged = `${prefix}.${Buffer.from(JSON.stringify({ ...claims, sub: 'someone-else' })).toString('base64url')}.${signature}`;
    expect((await platform.http('GET', '/whoami', { token: forged })).status).toBe(401);
    expect((await platform.http('GET', '/whoami', { headers: { authorization: 'Digest abc' } })).status).toBe(401);
  });

  it('refuses Basic credentials with an empty password as 401, audited as a refusal, never as a 400 naming a body member', async () => {
    for (const path of ['/whoami', '/user-management/accounts']) {
      const res = await platform.http('GET', path, { headers: { authorization: basic('admin', '') } });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ status: 'error', code: 'UNAUTHENTICATED' });
      expect((res.body as { message: string }).message).toMatch(/password/);
      expect(JSON.stringify(res.body)).not.toMatch(/body\.password/);
    }
    const audit = await platform.http('GET', '/audit?operation=admin.whoami&outcome=401&limit=5', { token: adminToken });
    expect(audit.status).toBe(200);
    expect((audit.body as { results: { actor: { username?: string; auth?: string } }[] }).results).toContainEqual(
      expect.objectContaining({ actor: expect.objectContaining({ username: 'admin', auth: 'basic' }) }),
    );
  });

  it('decides 401 and 403 before looking at the body', async () => {
    const unauth = await platform.http('POST', '/user-management/groups', { body: { nonsense: true } });
    expect(unauth.status).toBe(401);
    expect(JSON.stringify(unauth.body)).not.toMatch(/group/);
    const reader = await createUserWithRole('apiread');
    const forbidden = await platform.http('POST', '/user-management/groups', { token: reader, body: { nonsense: true } });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toMatchObject({ code: 'FORBIDDEN' });
    expect(JSON.stringify(forbidden.body)).not.toMatch(/nonsense|required/);
  });

  it('refuses an expired token', async () => {
    const expiring = await startTestPlatform({ config: { tokenTtlSeconds: 2 } });
    try {
      const token = await expiring.login();
      expect((await expiring.http('GET', '/whoami', { token })).status).toBe(200);
      const res = await eventually('the token to expire', async () => {
        const answer = await expiring.http('GET', '/whoami', { token });
        return answer.status !== 200 && answer;
      });
      expect(res.status).toBe(401);
      expect((res.body as { message: string }).message).toMatch(/expired/);
    } finally {
      await expiring.stop();
    }
  });
});

let counter = 0;
/** An account in a group holding exactly one role; returns its token. */
async function createUserWithRole(role: string): Promise<string> {
  counter += 1;
  const group = await platform.http('POST', '/user-management/groups', {
    token: adminToken,
    body: { group: { name: `g-${role}-${counter}` } },
  });
  const groupId = (group.body as { data: { _id: string } }).data._id;
  expect(
    (await platform.http('PUT', `/user-management/groups/${groupId}/roles`, { token: adminToken, body: { roles: [role] } })).status,
  ).toBe(200);
  const username = `u-${role}-${counter}`;
  const created = await platform.http('POST', '/user-management/accounts', {
    token: adminToken,
    body: { account: { username, password: 'password-123', groups: [groupId] } },
  });
  expect(created.status).toBe(200);
  return platform.login(username, 'password-123');
}
