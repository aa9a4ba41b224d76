import { SYSTEM_CALLER, hasCode, peekToken } from '@nap/contracts';
import type { BusClient } from '@nap/bus';
import { createClient } from '@nap/runtime';
import { TEST_ADMIN, startTestPlatform } from '@nap/standalone';
import { createLogger } from '@nap/telemetry';
import type { TestPlatform } from '@nap/standalone';
import { eventually, freePort } from '@nap/testing';
import { BrowserSession } from '../../../test/support/browser-session';
import type { BrowserAnswer } from '../../../test/support/browser-session';
import { startOpenIdProvider } from '../../../test/support/identity-providers';
import type { OpenIdProviderHandle } from '../../../test/support/identity-providers';
import { SignInMethods } from '../src/clients/sign-in-methods';
import type { AdminContext } from '../src/context';
import { browserMethodNamed } from '../src/steps/browser-sign-in';
import { signInAdministration } from './support/sign-in-administration';
import type { Account } from './support/sign-in-administration';

/**
 * Sign-in through an OpenID provider (oidc-provider, the certified Node implementation, run by the
 * test on a free port), driven through the browser flow over plain HTTP: NAP's /sso/login, the
 * provider's login and consent pages, NAP's /sso/callback, the token cookie. Groups from the claim
 * as NAP groups with provenance, admin groups, an ID token of the wrong audience, an expired one,
 * a wrong nonce, a replayed state and a state another browser began, an unsafe return path, a
 * provider that does not answer, the local administrator never taken over, the audit trail.
 */

const PEOPLE = {
  'alice-sub': {
    preferred_username: 'alice',
    given_name: 'Alice',
    family_name: 'Ops',
    email: 'alice@nap.test',
    groups: ['netops', 'nap-admins'],
  },
  'bob-sub': { preferred_username: 'bob', groups: ['netops'] },
  // a provider's person named as the local administrator: never signs in as it
  'admin-sub': { preferred_username: 'admin', groups: ['nap-admins'] },
  'nameless-sub': { groups: ['netops'] },
  // another person of the provider who took alice's preferred_username (a changed or reused name)
  'mallory-sub': { preferred_username: 'alice', groups: ['netops'] },
};

let platform: TestPlatform;
let op: OpenIdProviderHandle;
let napUrl: string;
let admin: string;
let bus: BusClient;

const { activeProfile, setProviders, accountOf, groupProvenances } = signInAdministration(() => ({ platform, token: admin }));

/** The whole browser flow for the provider's person `sub`, up to NAP's answer at its callback (its redirect to the console is not followed). */
async function signIn(browser: BrowserSession, sub: string, returnTo = '/console/jobs'): Promise<BrowserAnswer> {
  const loginPage = await browser.get(`${napUrl}/sso/login?provider=corp&returnTo=${encodeURIComponent(returnTo)}`);
  expect(loginPage.status).toBe(200);
  expect(loginPage.url).toContain(`${op.issuer}/interaction/`);
  const consentPage = await browser.postForm(loginPage.url, { prompt: 'login', login: sub, password: 'any' });
  expect(consentPage.status).toBe(200);
  const end = await browser.postForm(consentPage.url, { prompt: 'consent' }, (next) => next.pathname.startsWith('/console'));
  return { ...end, hops: [...loginPage.hops, ...consentPage.hops, ...end.hops] };
}

/** The callback NAP was sent to on the way. */
function callbackOf(answer: BrowserAnswer): string {
  const hop = answer.hops.find((h) => new URL(h.url).pathname === '/sso/callback');
  if (!hop) throw new Error(`no callback among ${answer.hops.map((h) => h.url).join(', ')}`);
  return hop.url;
}

async function whoamiWithCookie(browser: BrowserSession): Promise<{ status: number; body: Account }> {
  const token = browser.cookie(napUrl, 'token');
  expect(token).toBeDefined();
  const res = await platform.http('GET', '/whoami', { headers: { cookie: `token=${token}` } });
  return { status: res.status, body: res.body as Account };
}

/** What the gateway asks at most once a minute per session: the session's caller, re-checked when due. */
async function resolveSession(token: string) {
  const sid = peekToken(token)?.sid as string;
  return bus.call('admin.resolveSession', { body: { sid } }, { caller: SYSTEM_CALLER });
}

async function sessionRecord(sid: string): Promise<Record<string, unknown> | null | undefined> {
  return await platform.stores.get('admin')?.collection('sessions').findOne({ _id: sid });
}

/** Moves the session's last check with its sign-in method back beyond any re-check interval. */
async function ageSession(sid: string): Promise<void> {
  await platform.stores
    .get('admin')
    ?.collection('sessions')
    .updateOne({ _id: sid }, { $set: { checkedAt: 0 } });
}

function errorOf(answer: BrowserAnswer): { code: string; message: string } {
  return JSON.parse(answer.text) as { code: string; message: string };
}

beforeAll(async () => {
  const port = await freePort();
  napUrl = `http://127.0.0.1:${port}`;
  op = await startOpenIdProvider({ redirectUri: `${napUrl}/sso/callback`, people: PEOPLE, refreshTokens: true });
  platform = await startTestPlatform({ config: { port, publicUrl: napUrl } });
  admin = await platform.login();
  bus = createClient(platform.bus);
  const down = await freePort();
  await setProviders({
    corp: {
      type: 'oidc',
      label: 'Corp SSO',
      issuer: op.issuer,
      clientId: op.clientId,
      clientSecret: op.clientSecret,
      adminGroups: ['nap-admins'],
      timeoutMs: 3_000,
    },
    // nothing listens there
    down: { type: 'oidc', issuer: `http://127.0.0.1:${down}`, clientId: 'nap', timeoutMs: 1_000 },
  });
}, 60_000);

afterAll(async () => {
  await platform?.stop();
  await op?.stop();
});

afterEach(() => op.tamper(undefined));

describe('OpenID Connect sign-in through the browser', () => {
  test('GET /sso/methods lists the enabled browser methods, without credentials', async () => {
    const res = await platform.http('GET', '/sso/methods');
    expect(res.status).toBe(200);
    expect((res.body as { results: unknown[] }).results).toEqual([
      { name: 'corp', label: 'Corp SSO', type: 'oidc' },
      { name: 'down', label: 'down', type: 'oidc' },
    ]);
  });

  test('the client secret is sealed and answered as ********', async () => {
    const profile = await activeProfile();
    const providers = profile.authenticationProps?.providers as Record<string, Record<string, unknown>>;
    expect(providers.corp?.clientSecret).toBe('********');
  });

  test('a person signs in: same token cookie as /login, redirect to the console, groups from the claim with provenance, admin groups', async () => {
    const browser = new BrowserSession();
    const before = Date.now();
    const answer = await signIn(browser, 'alice-sub');
    expect(answer.status).toBe(303);
    expect(answer.hops.at(-1)?.location).toBe('/console/jobs');
    // the authorization request carried PKCE, state and nonce
    const authorize = new URL(answer.hops.find((h) => h.url.startsWith(`${napUrl}/sso/login`))?.location ?? '');
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('nonce')).toBeTruthy();
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${napUrl}/sso/callback`);
    // the binding cookie is gone once used
    expect(browser.cookie(napUrl, 'nap_sso')).toBeUndefined();

    const me = await whoamiWithCookie(browser);
    expect(me.status).toBe(200);
    expect(me.body.username).toBe('alice');
    expect(me.body.roles).toContain('admin');
    const alice = await accountOf('alice');
    expect(alice.provenance).toBe('corp');
    expect(alice.firstname).toBe('Alice');
    expect(alice.email).toBe('alice@nap.test');
    // the sign-in is the account's last (an access review reads it)
    expect(Date.parse(String(alice.lastLogin))).toBeGreaterThanOrEqual(before - 1000);
    expect(await groupProvenances(alice.groups)).toEqual(['nap-admins:corp', 'netops:corp']);
    // the ID token was signed by the provider and checked
    expect(op.issuedIdTokens().length).toBeGreaterThan(0);
  });

  test('another person gets the groups of their claim only, and no role until one is given', async () => {
    const browser = new BrowserSession();
    expect((await signIn(browser, 'bob-sub')).status).toBe(303);
    const bob = await accountOf('bob');
    expect(await groupProvenances(bob.groups)).toEqual(['netops:corp']);
    expect(bob.roles).toEqual([]);
  });

  test("another person of the provider under alice's username (another subject) is refused; alice keeps her account", async () => {
    const before = await accountOf('alice');
    const mallory = await signIn(new BrowserSession(), 'mallory-sub');
    expect(mallory.status).toBe(401);
    expect(errorOf(mallory).message).toMatch(/belongs to another person of this provider/);
    const after = await accountOf('alice');
    expect(after.groups.sort()).toEqual(before.groups.sort());
    const alice = new BrowserSession();
    expect((await signIn(alice, 'alice-sub')).status).toBe(303);
    expect((await whoamiWithCookie(alice)).body.roles).toContain('admin');
  });

  test('an ID token for another audience is refused, naming the audience', async () => {
    op.tamper({ aud: 'someone-else' });
    const answer = await signIn(new BrowserSession(), 'alice-sub');
    expect(answer.status).toBe(401);
    expect(errorOf(answer).message).toMatch(/aud/);
  });

  test('an expired ID token is refused, naming the expiry', async () => {
    op.tamper({ expiresIn: -3_600 });
    const answer = await signIn(new BrowserSession(), 'alice-sub');
    expect(answer.status).toBe(401);
    expect(errorOf(answer).message).toMatch(/exp/);
  });

  test('an ID token with another nonce is refused', async () => {
    op.tamper({ nonce: 'not-the-one-sent' });
    const answer = await signIn(new BrowserSession(), 'alice-sub');
    expect(answer.status).toBe(401);
    expect(errorOf(answer).message).toMatch(/nonce/);
  });

  test('a replayed callback is refused: the state is taken once', async () => {
    const browser = new BrowserSession();
    const answer = await signIn(browser, 'bob-sub');
    expect(answer.status).toBe(303);
    const callback = callbackOf(answer);
    // the same browser, its binding cookie put back by hand: the state is gone from the store
    const replay = new BrowserSession();
    replay.setCookie(napUrl, 'nap_sso', new URL(callback).searchParams.get('state') ?? '', '/sso');
    const again = await replay.get(callback);
    expect(again.status).toBe(401);
    expect(errorOf(again).message).toMatch(/finished already/);
  });

  test('a callback carried to another browser is refused (login CSRF), and the browser that began it still finishes', async () => {
    const victim = new BrowserSession();
    const attacker = new BrowserSession();
    const loginPage = await attacker.get(`${napUrl}/sso/login?provider=corp`);
    const consentPage = await attacker.postForm(loginPage.url, { prompt: 'login', login: 'bob-sub', password: 'any' });
    const stopped = await attacker.postForm(consentPage.url, { prompt: 'consent' }, (next) => next.pathname === '/sso/callback');
    const callback = new URL(stopped.hops.at(-1)?.location ?? '', stopped.url).href;
    const forced = await victim.get(callback);
    expect(forced.status).toBe(401);
    expect(errorOf(forced).message).toMatch(/not begun in this browser/);
    expect(victim.cookie(napUrl, 'token')).toBeUndefined();
    const own = await attacker.get(callback, (next) => next.pathname.startsWith('/console'));
    expect(own.status).toBe(303);
  });

  test('a return path to another site is refused before the provider is asked', async () => {
    for (const returnTo of ['//evil.example/x', 'https://evil.example/', '/\\evil.example']) {
      const res = await platform.http('GET', `/sso/login?provider=corp&returnTo=${encodeURIComponent(returnTo)}`);
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toContain('query.returnTo');
    }
  });

  test('an unknown provider is 400 naming it; a provider that does not answer is 503 while local sign-in goes on', async () => {
    const unknown = await platform.http('GET', '/sso/login?provider=nope');
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).toContain('query.provider');
    const down = await platform.http('GET', '/sso/login?provider=down');
    expect(down.status).toBe(503);
    expect((down.body as { code: string }).code).toBe('AUTH_PROVIDER_UNAVAILABLE');
    expect(await platform.login(TEST_ADMIN.username, TEST_ADMIN.password)).toBeTruthy();
  });

  test('a provider person named as the local administrator is refused; one without a username claim too', async () => {
    const asAdmin = await signIn(new BrowserSession(), 'admin-sub');
    expect(asAdmin.status).toBe(401);
    expect(errorOf(asAdmin).message).toMatch(/belongs to a local account/);
    const nameless = await signIn(new BrowserSession(), 'nameless-sub');
    expect(nameless.status).toBe(401);
    expect(errorOf(nameless).message).toMatch(/preferred_username/);
    const administrator = await accountOf(TEST_ADMIN.username);
    expect(administrator.provenance).toBeUndefined();
  });

  test('the sign-in and its refusals are in the audit trail, as the login is', async () => {
    type Record = { actor: { kind: string; username: string; auth: string }; outcome: { status: number } };
    const records = await eventually('the sign-ins of alice and a refusal in the audit trail', async () => {
      const res = await platform.http('GET', '/audit?operation=admin.ssoCallback&limit=100', { token: admin });
      expect(res.status).toBe(200);
      const found = (res.body as { results: Record[] }).results;
      return found.some((r) => r.outcome.status === 401) && found;
    });
    expect(
      records.some((r) => r.actor.kind === 'account' && r.actor.username === 'alice' && r.actor.auth === 'sso' && r.outcome.status === 303),
    ).toBe(true);
    expect(records.some((r) => r.actor.kind === 'anonymous' && r.actor.auth === 'sso' && r.outcome.status === 401)).toBe(true);
  });
  test('the sign-ins and their refusals are counted in nap_logins_total, as logins are', async () => {
    const res = await platform.http('GET', '/exporter_metrics', { token: admin });
    const count = (outcome: string) =>
      Number(new RegExp(`^nap_logins_total\\{via="sso",outcome="${outcome}"[^}]*\\} (\\d+)$`, 'm').exec(String(res.body))?.[1]);
    // the tests above: people signed in, and two were refused (the local administrator's name, no username)
    expect(count('ok')).toBeGreaterThanOrEqual(1);
    expect(count('wrong')).toBeGreaterThanOrEqual(2);
    expect(count('throttled')).toBe(0);
  });

  test("a browser whose sign-in fails goes back to the console's login page, told why by its error code, the binding cookie cleared", async () => {
    // what Chromium sends for a navigation
    const accept = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
    const refused = await fetch(`${napUrl}/sso/callback?state=forged-state&code=x`, {
      headers: { accept, cookie: 'nap_sso=forged-state' },
      redirect: 'manual',
    });
    expect(refused.status).toBe(303);
    const location = new URL(refused.headers.get('location') ?? '', napUrl);
    expect(location.pathname).toBe('/console/login');
    expect(location.searchParams.get('signInError')).toBe('UNAUTHENTICATED');
    expect(location.searchParams.get('requestId')).toBe(refused.headers.get('x-request-id'));
    expect(refused.headers.getSetCookie().find((c) => c.startsWith('nap_sso='))).toMatch(/Expires=Thu, 01 Jan 1970/);
    expect(refused.headers.getSetCookie().find((c) => c.startsWith('token='))).toBeUndefined();

    const unknown = await fetch(`${napUrl}/sso/login?provider=nope`, { headers: { accept }, redirect: 'manual' });
    expect(unknown.status).toBe(303);
    expect(new URL(unknown.headers.get('location') ?? '', napUrl).searchParams.get('signInError')).toBe('VALIDATION_FAILED');

    // a script or command line that asks for JSON still gets the error body
    const scripted = await fetch(`${napUrl}/sso/callback?state=forged-state&code=x`, {
      headers: { accept: 'application/json', cookie: 'nap_sso=forged-state' },
      redirect: 'manual',
    });
    expect(scripted.status).toBe(401);
    expect(((await scripted.json()) as { code: string }).code).toBe('UNAUTHENTICATED');
  });
  test("an open session is re-checked with the provider's refresh token: groups as they are now, and it ends once the provider lets the person go", async () => {
    const person = PEOPLE['bob-sub'];
    const browser = new BrowserSession();
    expect((await signIn(browser, 'bob-sub')).status).toBe(303);
    const token = browser.cookie(napUrl, 'token') ?? '';
    const sid = peekToken(token)?.sid as string;
    // the refresh token is kept sealed with the session, never in clear
    const stored = await sessionRecord(sid);
    expect(stored?.renewal).toMatch(/^v1\./);
    for (const issued of op.issuedRefreshTokens()) expect(JSON.stringify(stored)).not.toContain(issued);
    expect((await resolveSession(token)).body.roles).toEqual([]);
    try {
      // the provider now puts bob in the admin group: within the interval the session keeps what it had
      person.groups = ['netops', 'nap-admins'];
      expect((await resolveSession(token)).body.roles).toEqual([]);
      // once the re-check falls due, the refresh grant brings the groups of now
      await ageSession(sid);
      const renewed = await resolveSession(token);
      expect(renewed.body.roles).toContain('admin');
      expect(await groupProvenances((await accountOf('bob')).groups)).toEqual(['nap-admins:corp', 'netops:corp']);
      // the provider no longer knows bob: the refresh is refused and every session of his ends
      Reflect.deleteProperty(PEOPLE, 'bob-sub');
      await ageSession(sid);
      await expect(resolveSession(token)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
      expect(hasCode(await resolveSession(token).catch((err: unknown) => err), 'UNAUTHENTICATED')).toBe(true);
    } finally {
      PEOPLE['bob-sub'] = { ...person, groups: ['netops'] };
    }
  });

  test("logging out gives the session's refresh token back to the provider (token revocation)", async () => {
    const browser = new BrowserSession();
    expect((await signIn(browser, 'alice-sub')).status).toBe(303);
    const refreshToken = op.issuedRefreshTokens().at(-1);
    expect(refreshToken).toBeDefined();
    const token = browser.cookie(napUrl, 'token') ?? '';
    expect((await platform.http('GET', '/logout', { headers: { cookie: `token=${token}` } })).status).toBe(200);
    await eventually('the provider told to revoke the refresh token', () => op.revokedTokens().includes(refreshToken ?? ''));
  });

  test('a session begun without a refresh token ends when its re-check falls due: the person signs in again', async () => {
    const browser = new BrowserSession();
    expect((await signIn(browser, 'bob-sub')).status).toBe(303);
    const token = browser.cookie(napUrl, 'token') ?? '';
    const sid = peekToken(token)?.sid as string;
    await platform.stores
      .get('admin')
      ?.collection('sessions')
      .updateOne({ _id: sid }, { $unset: { renewal: '' } });
    expect((await resolveSession(token)).status).toBe(200);
    await ageSession(sid);
    await expect(resolveSession(token)).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
      message: expect.stringContaining('cannot confirm a person without their password'),
    });
  });

  // last: the address of every test here then waits
  test('an address that keeps bringing refused callbacks waits, as for /login (429)', async () => {
    const profile = await activeProfile();
    const res = await platform.http('PUT', '/profiles/default', {
      token: admin,
      body: { properties: { ...profile, authenticationProps: { ...profile.authenticationProps, loginThrottle: { addressFailures: 15 } } } },
    });
    expect(res.status).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 20 && statuses.at(-1) !== 429; i += 1) {
      const forged = new BrowserSession();
      forged.setCookie(napUrl, 'nap_sso', `forged-${i}`, '/sso');
      statuses.push((await forged.get(`${napUrl}/sso/callback?state=forged-${i}&code=x`)).status);
    }
    expect(statuses.at(-1)).toBe(429);
    expect(new Set(statuses.slice(0, -1))).toEqual(new Set([401]));
    // a good sign-in from that address waits too, before the state is taken
    const waiting = await signIn(new BrowserSession(), 'bob-sub');
    expect(waiting.status).toBe(429);
    expect(errorOf(waiting).code).toBe('LOGIN_THROTTLED');
  });
});

describe('a browser provider the platform cannot build', () => {
  test('GET /sso/login naming it says why it signs nobody in (NAP_PUBLIC_URL unset), not only that it is not enabled', async () => {
    const providers = { okta: { type: 'oidc', issuer: 'https://corp.okta.example/oauth2/default', clientId: '0oa' } };
    // no publicUrl: the standalone process without NAP_PUBLIC_URL
    const signIn = new SignInMethods(
      async () => ({ version: '1', authenticationProps: () => ({ providers }) }),
      createLogger({ name: 't', level: 'silent' }),
    );
    expect(await signIn.all()).toEqual([]);
    expect(await signIn.leftOut('okta')).toContain('NAP_PUBLIC_URL is not set');
    const svc = { signIn } as unknown as AdminContext;
    await expect(browserMethodNamed(svc, 'okta', 'query.provider')).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringMatching(
        /^query\.provider is "okta", which the active profile has but which signs nobody in: NAP_PUBLIC_URL is not set/,
      ),
    });
    await expect(browserMethodNamed(svc, 'nosuch', 'query.provider')).rejects.toMatchObject({
      message: expect.stringContaining('is "nosuch", which is not an enabled browser sign-in method (none is enabled)'),
    });
  });
});
