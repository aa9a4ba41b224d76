import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestPlatform, TEST_ADMIN } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';

/**
 * The browser rules of issue #20 through HTTP: the `token` cookie's flags, the refusal of changes
 * sent from another site's page with the cookie alone, the security headers, and the console's
 * files served at /console/.
 */

const EVIL = 'http://evil.example';
const ALLOWED = 'https://ops.example.net';

let platform: TestPlatform;
let token: string;
let consoleDir: string;

beforeAll(async () => {
  consoleDir = mkdtempSync(path.join(os.tmpdir(), 'nap-console-'));
  mkdirSync(path.join(consoleDir, 'assets'));
  writeFileSync(
    path.join(consoleDir, 'index.html'),
    '<!doctype html><title>NAP</title><script type="module" src="/console/assets/index-abc123.js"></script>',
  );
  writeFileSync(path.join(consoleDir, 'assets', 'index-abc123.js'), 'console.log("console");');
  platform = await startTestPlatform({ config: { consoleDir, allowedOrigins: [ALLOWED] } });
  token = await platform.login();
});

afterAll(async () => {
  await platform.stop();
  rmSync(consoleDir, { recursive: true, force: true });
});

const basic = `Basic ${Buffer.from(`${TEST_ADMIN.username}:${TEST_ADMIN.password}`).toString('base64')}`;
let groups = 0;

/** POST /user-management/groups with the given headers; a new group name each time. */
async function createGroup(headers: Record<string, string>, route = '/user-management/groups') {
  groups += 1;
  const res = await fetch(`${platform.url}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ group: { name: `browser-safety-${groups}` } }),
  });
  return { status: res.status, body: (await res.json()) as { code?: string; message?: string } };
}

async function loginCookie(target: TestPlatform, headers: Record<string, string> = {}): Promise<string> {
  const res = await fetch(`${target.url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ user: TEST_ADMIN }),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('cache-control')).toBe('no-store');
  return res.headers.get('set-cookie') ?? '';
}

describe('the token cookie', () => {
  it('is HttpOnly, SameSite=Strict, Path=/ and not Secure over plain http', async () => {
    const cookie = await loginCookie(platform);
    expect(cookie).toMatch(/^token=nap1\./);
    expect(cookie).toMatch(/; HttpOnly/i);
    expect(cookie).toMatch(/; SameSite=Strict/i);
    expect(cookie).toMatch(/; Path=\//i);
    expect(cookie).not.toMatch(/; Secure/i);
    // a proxy's word is not taken without NAP_TRUST_PROXY
    expect(await loginCookie(platform, { 'x-forwarded-proto': 'https' })).not.toMatch(/; Secure/i);
  });

  it('is Secure when NAP_PUBLIC_URL is https, or a trusted proxy says the request came as https', async () => {
    const behindHttps = await startTestPlatform({ config: { publicUrl: 'https://nap.example.net' } });
    const proxied = await startTestPlatform({ config: { trustProxy: true } });
    try {
      expect(await loginCookie(behindHttps)).toMatch(/; Secure/i);
      expect(await loginCookie(proxied, { 'x-forwarded-proto': 'https' })).toMatch(/; Secure/i);
      expect(await loginCookie(proxied)).not.toMatch(/; Secure/i);
      // HSTS only where the answer went out over https
      const hsts = await fetch(`${behindHttps.url}/health/live`);
      expect(hsts.headers.get('strict-transport-security')).toMatch(/^max-age=31536000/);
      const plain = await fetch(`${proxied.url}/health/live`);
      expect(plain.headers.get('strict-transport-security')).toBeNull();
      const forwarded = await fetch(`${proxied.url}/health/live`, { headers: { 'x-forwarded-proto': 'https' } });
      expect(forwarded.headers.get('strict-transport-security')).toMatch(/^max-age=/);
      // the platform's public origin is its own for the cross-site rule
      const cookie = (await loginCookie(behindHttps)).split(';')[0] ?? '';
      const res = await fetch(`${behindHttps.url}/user-management/groups`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie, origin: 'https://nap.example.net' },
        body: JSON.stringify({ group: { name: 'from-the-public-origin' } }),
      });
      expect(res.status).toBe(200);
    } finally {
      await behindHttps.stop();
      await proxied.stop();
    }
  });

  it('is cleared by logout with the same flags', async () => {
    const res = await fetch(`${platform.url}/logout`, { headers: { authorization: `Bearer ${await platform.login()}` } });
    expect(res.status).toBe(200);
    const cookie = res.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^token=;/);
    expect(cookie).toMatch(/; HttpOnly/i);
    expect(cookie).toMatch(/; SameSite=Strict/i);
  });
});

describe('changes sent with the cookie alone', () => {
  it('are refused with 403 CROSS_SITE_REQUEST from another site, and nothing changes', async () => {
    const before = await platform.http('GET', '/user-management/groups?limit=500', { token });
    const refused = await createGroup({ cookie: `token=${token}`, origin: EVIL });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ status: 'error', code: 'CROSS_SITE_REQUEST' });
    expect(refused.body.message).toContain('"http://evil.example"');
    expect(refused.body.message).toContain('NAP_ALLOWED_ORIGINS');
    const after = await platform.http('GET', '/user-management/groups?limit=500', { token });
    expect(JSON.stringify(after.body)).toBe(JSON.stringify(before.body));
    // DELETE too, and an Origin of "null" (a sandboxed frame, a data: page)
    const group = await platform.http('POST', '/user-management/groups', { token, body: { group: { name: 'kept-group' } } });
    const groupId = (group.body as { data: { _id: string } }).data._id;
    const deleted = await fetch(`${platform.url}/user-management/groups/${groupId}`, {
      method: 'DELETE',
      headers: { cookie: `token=${token}`, origin: 'null' },
    });
    expect(deleted.status).toBe(403);
    expect((await platform.http('GET', `/user-management/groups/${groupId}`, { token })).status).toBe(200);
  });

  it('refuses a bodyless form-encoded POST from another site (what an HTML form sends)', async () => {
    const res = await fetch(`${platform.url}/operations-manager/jobs/some-job/pause`, {
      method: 'POST',
      headers: { cookie: `token=${token}`, origin: EVIL, 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: 'CROSS_SITE_REQUEST' });
  });

  it('without Origin, goes through when Sec-Fetch-Site says same-origin or none, or is not there (a program, not a page)', async () => {
    expect((await createGroup({ cookie: `token=${token}`, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    expect((await createGroup({ cookie: `token=${token}`, 'sec-fetch-site': 'none' })).status).toBe(200);
    expect((await createGroup({ cookie: `token=${token}`, 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await createGroup({ cookie: `token=${token}`, 'sec-fetch-site': 'same-site' })).status).toBe(403);
    const crossSite = await createGroup({ cookie: `token=${token}`, 'sec-fetch-site': 'cross-site' });
    expect(crossSite.body.message).toContain('Authorization header');
    // what ipctl and ipsdk send after their login: the cookie and no browser's header
    expect((await createGroup({ cookie: `token=${token}` })).status).toBe(200);
  });

  it('go through from the platform’s own origin (the host addressed) and from NAP_ALLOWED_ORIGINS', async () => {
    expect((await createGroup({ cookie: `token=${token}`, origin: platform.url })).status).toBe(200);
    expect((await createGroup({ cookie: `token=${token}`, origin: ALLOWED })).status).toBe(200);
    expect((await createGroup({ cookie: `token=${token}`, origin: 'https://ops.example.net.evil.example' })).status).toBe(403);
  });

  it('do not concern Bearer, Basic or ?token= callers, nor reads', async () => {
    expect((await createGroup({ authorization: `Bearer ${token}`, origin: EVIL })).status).toBe(200);
    expect((await createGroup({ authorization: basic, origin: EVIL, cookie: `token=${token}` })).status).toBe(200);
    expect(
      (await createGroup({ origin: EVIL, cookie: `token=${token}` }, `/user-management/groups?token=${encodeURIComponent(token)}`)).status,
    ).toBe(200);
    const read = await fetch(`${platform.url}/whoami`, { headers: { cookie: `token=${token}`, origin: EVIL } });
    expect(read.status).toBe(200);
  });

  it('are refused when a ?token= that holds no token rides along: the cookie is still what authenticates them', async () => {
    // an empty token, an empty quoted one, or token[...] (an object to the query parser): the gateway authenticates the cookie
    for (const query of ['?token=', '?token=%22%22', '?token[a]=1', '?token[]=']) {
      const refused = await createGroup({ cookie: `token=${token}`, origin: EVIL }, `/user-management/groups${query}`);
      expect({ query, status: refused.status, code: refused.body.code }).toEqual({ query, status: 403, code: 'CROSS_SITE_REQUEST' });
      const sameSite = await fetch(`${platform.url}/operations-manager/jobs/some-job/pause${query}`, {
        method: 'POST',
        headers: { cookie: `token=${token}`, 'sec-fetch-site': 'same-site' },
      });
      expect({ query, status: sameSite.status }).toEqual({ query, status: 403 });
    }
    // an empty Authorization header is no credential either
    expect((await createGroup({ cookie: `token=${token}`, origin: EVIL, authorization: '' })).status).toBe(403);
  });
});

describe('security headers', () => {
  it('are on every answer: JSON, errors, documents', async () => {
    for (const route of ['/health/live', '/openapi.json', '/no/such/route', '/whoami']) {
      const res = await fetch(`${platform.url}${route}`);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      // read to the end: an unread body (the OpenAPI document is large) holds its connection open after the suite
      await res.arrayBuffer();
    }
  });

  it('give HTML a Content-Security-Policy without inline scripts that forbids framing', async () => {
    for (const route of ['/console/', '/docs']) {
      const res = await fetch(`${platform.url}${route}`);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toMatch(/script-src 'self'(;|$)/);
      expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    }
    const docsInit = await fetch(`${platform.url}/docs/init.js`);
    expect(await docsInit.text()).toContain('persistAuthorization: false');
  });
});

describe('the console files', () => {
  it('redirects / to /console/ and answers every page under /console/ with index.html, revalidated', async () => {
    const root = await fetch(`${platform.url}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/console/');
    const bare = await fetch(`${platform.url}/console`, { redirect: 'manual' });
    expect(bare.headers.get('location')).toBe('/console/');
    for (const page of [
      '/console/',
      '/console/jobs',
      '/console/jobs/0f5a-some-job?status=running',
      '/console/workflows/Port%20Turn%20Up',
    ]) {
      const res = await fetch(`${platform.url}${page}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(await res.text()).toContain('/console/assets/index-abc123.js');
    }
  });

  it('caches hashed assets for a year as immutable, and a missing asset is a 404, not the page', async () => {
    const asset = await fetch(`${platform.url}/console/assets/index-abc123.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const missing = await fetch(`${platform.url}/console/assets/index-gone.js`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('answers a page naming npm run build when the console is not built', async () => {
    const bare = await startTestPlatform({ config: { consoleDir: path.join(consoleDir, 'absent') } });
    try {
      const res = await fetch(`${bare.url}/console/jobs`);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await res.text()).toContain('npm run build');
      // a browser sign-in that fails is answered with its error there, not sent to a login page that is not served
      const accept = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
      const refused = await fetch(`${bare.url}/sso/login?provider=nope`, { headers: { accept }, redirect: 'manual' });
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { code: string }).code).toBe('VALIDATION_FAILED');
      // where the console is served, the same failure goes back to its login page
      const served = await fetch(`${platform.url}/sso/login?provider=nope`, { headers: { accept }, redirect: 'manual' });
      expect(served.status).toBe(303);
      expect(served.headers.get('location')).toMatch(/^\/console\/login\?signInError=VALIDATION_FAILED&/);
    } finally {
      await bare.stop();
    }
  });
});
