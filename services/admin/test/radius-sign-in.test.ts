import { SYSTEM_CALLER, peekToken } from '@nap/contracts';
import { createClient } from '@nap/runtime';
import type { BusClient } from '@nap/bus';
import { TEST_ADMIN, startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { FREERADIUS, RADIUS_SECRET, serverPresent, silentUdpServer, startFreeRadius } from '../../../test/support/directory-servers';
import type { FreeRadius } from '../../../test/support/directory-servers';
import { signInAdministration } from './support/sign-in-administration';
import type { Account } from './support/sign-in-administration';

/**
 * Sign-in against RADIUS (Debian's FreeRADIUS run by the test in the foreground with its own
 * configuration: one client, users with reply attributes, PAP): groups from the Class attribute,
 * a second server after one that does not answer, the timeout, a wrong shared secret, and sessions
 * that end at the re-check interval, since RADIUS cannot be asked about a person without their password.
 */

const present = serverPresent(FREERADIUS, 'freeradius');
const suite = present ? describe : describe.skip;

let radius: FreeRadius;
let silent: Awaited<ReturnType<typeof silentUdpServer>>;
let platform: TestPlatform;
let admin: string;
let bus: BusClient;

const { setProviders, accountOf, groupNames } = signInAdministration(() => ({ platform, token: admin }));

/** Makes the test's FreeRADIUS the profile's one provider (its secret kept: ********), with `extra` laid over. */
function setRadius(extra: Record<string, unknown>): Promise<void> {
  return setProviders({ radius: { type: 'radius', servers: [radius.server], secret: '********', timeoutMs: 800, ...extra } });
}

async function login(username: string, password: string) {
  return platform.http('POST', '/login', { body: { user: { username, password } } });
}

suite('sign-in with RADIUS', () => {
  beforeAll(async () => {
    radius = await startFreeRadius({
      alice: { password: 'alice-pass', reply: { Class: ['netops', 'radius-admins'] } },
      bob: { password: 'bob-pass', reply: { Class: ['netops'] } },
    });
    silent = await silentUdpServer();
    platform = await startTestPlatform({
      config: {
        radius: { type: 'radius', servers: [radius.server], secret: RADIUS_SECRET, timeoutMs: 800, adminGroups: ['radius-admins'] },
      },
    });
    admin = await platform.login();
    bus = createClient(platform.bus);
    // servers and the platform start on a machine that may be busy: more than a test's 30 s
  }, 120_000);

  afterAll(async () => {
    await platform?.stop();
    await radius?.stop();
    await silent?.stop();
  });

  it('signs a person in with PAP, their Class values as NAP groups with provenance, the admin group giving the admin role', async () => {
    const res = await login('alice', 'alice-pass');
    expect(res.status).toBe(200);
    const me = await platform.http('GET', '/whoami', { token: res.body as string });
    expect(me.body).toMatchObject({ username: 'alice', provenance: 'radius' });
    expect((me.body as Account).roles).toContain('admin');
    // /whoami names its groups, with the method that brought them in
    const groups = (me.body as { groups: { id: string; name: string; provenance: string }[] }).groups;
    expect(groups.map((g) => `${g.name} (${g.provenance})`).sort()).toEqual(['netops (radius)', 'radius-admins (radius)']);
    expect(await groupNames(groups.map((g) => g.id))).toEqual(['netops', 'radius-admins']);
    const bob = await login('bob', 'bob-pass');
    expect(bob.status).toBe(200);
    expect(await accountOf('bob')).toMatchObject({ provenance: 'radius', roles: [] });
  });

  it('refuses a wrong password and a person the servers do not know', async () => {
    expect((await login('alice', 'wrong')).status).toBe(401);
    expect((await login('mallory', 'alice-pass')).status).toBe(401);
    const basic = `Basic ${Buffer.from('alice:wrong').toString('base64')}`;
    expect((await platform.http('GET', '/whoami', { headers: { authorization: basic } })).status).toBe(401);
  });

  it('asks the second server when the first does not answer within its timeout', async () => {
    await setRadius({ servers: [silent.server, radius.server] });
    const before = silent.received();
    expect((await login('alice', 'alice-pass')).status).toBe(200);
    // the silent server was asked first, and again halfway through its timeout
    expect(silent.received() - before).toBe(2);
  });

  it('answers 503 AUTH_PROVIDER_UNAVAILABLE when no server answers, while the local admin signs in', async () => {
    await setRadius({ servers: [silent.server] });
    const res = await login('alice', 'alice-pass');
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ code: 'AUTH_PROVIDER_UNAVAILABLE', message: expect.stringContaining('no answer within 800 ms') });
    expect((await login(TEST_ADMIN.username, TEST_ADMIN.password)).status).toBe(200);
  });

  it('believes no reply made with another shared secret', async () => {
    await setRadius({ servers: [radius.server], secret: 'not-the-shared-secret' });
    const res = await login('alice', 'alice-pass');
    // FreeRADIUS drops a request whose Message-Authenticator fails: to NAP it is a server that does not answer
    expect(res.status).toBe(503);
    await setRadius({ servers: [radius.server], secret: RADIUS_SECRET });
    expect((await login('alice', 'alice-pass')).status).toBe(200);
    // a server that cannot sign its replies: only the Response Authenticator is checked then
    await setRadius({ messageAuthenticator: false });
    expect((await login('alice', 'alice-pass')).status).toBe(200);
    await setRadius({});
  });

  it('ends a session when its re-check falls due: RADIUS cannot confirm a person without their password', async () => {
    const token = (await login('alice', 'alice-pass')).body as string;
    const sid = peekToken(token)?.sid as string;
    const resolve = () => bus.call('admin.resolveSession', { body: { sid } }, { caller: SYSTEM_CALLER });
    expect((await resolve()).body.username).toBe('alice');
    await platform.stores
      .get('admin')
      ?.collection('sessions')
      .updateOne({ _id: sid }, { $set: { checkedAt: 0 } });
    await expect(resolve()).rejects.toMatchObject({ code: 'UNAUTHENTICATED', message: expect.stringContaining('log in again') });
    // a new sign-in begins a new session
    expect((await login('alice', 'alice-pass')).status).toBe(200);
  });
});
