import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Change, Attribute } from 'ldapts';
import { SYSTEM_CALLER, hasCode, peekToken } from '@nap/contracts';
import type { LdapProviderConfig } from '@nap/contracts';
import { createClient } from '@nap/runtime';
import type { BusClient } from '@nap/bus';
import { TEST_ADMIN, startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { createLogger } from '@nap/telemetry';
import { eventually, freePort } from '@nap/testing';
import {
  LDAP_SERVICE_DN,
  LDAP_SERVICE_PASSWORD,
  LDAP_SUFFIX,
  SLAPD,
  addPerson,
  groupDn,
  loadDirectory,
  makeTestCa,
  personDn,
  serverPresent,
  startSlapd,
} from '../../../test/support/directory-servers';
import type { Slapd, TestCa } from '../../../test/support/directory-servers';
import { LdapDirectory } from '../src/clients/ldap-directory';
import { signInAdministration } from './support/sign-in-administration';
import type { Account, Group } from './support/sign-in-administration';

/**
 * Sign-in with an OpenLDAP directory (Debian's slapd with the memberof overlay, run by the test on
 * free ports with its own database and a CA the test makes): /login, Basic and the client
 * credentials grant for directory users, their groups as NAP groups with provenance, admin groups,
 * removal from a group between two sign-ins and at the re-check of an open session, a directory
 * that stops answering (503 while local sign-in goes on), injection and empty passwords, TLS.
 */

const present = serverPresent(SLAPD, 'slapd ldap-utils');
const suite = present ? describe : describe.skip;
/** How long the gateway of this test remembers Basic credentials. */
const BASIC_TTL_MS = 1_000;

const PEOPLE = [
  { uid: 'alice', password: 'alice-pass', givenName: 'Alice', sn: 'Ops', mail: 'alice@nap.test' },
  { uid: 'bob', password: 'bob-pass' },
  { uid: 'carol', password: 'carol-pass' },
  // a directory person with the name of the local administrator: never signs in as it
  { uid: 'admin', password: 'directory-admin-pass' },
];
const GROUPS: Record<string, string[]> = {
  netops: ['alice', 'bob'],
  'nap-admins': ['alice'],
  // a directory group named as NAP's own local admins group: must not merge into it
  admins: ['bob'],
  // a group of groups: slapd does not follow it (Active Directory's in-chain rule does)
  engineering: ['group:netops'],
};

let tmp: string;
let ca: TestCa;
let slapd: Slapd;
let platform: TestPlatform;
let admin: string;
let bus: BusClient;

const { activeProfile, setProviders, accountOf, groupsByName, groupNames } = signInAdministration(() => ({ platform, token: admin }));

function ldapProvider(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: 'ldap',
    url: slapd.url,
    startTls: true,
    caFile: ca.caFile,
    bindDN: LDAP_SERVICE_DN,
    bindPassword: LDAP_SERVICE_PASSWORD,
    userBase: `ou=people,${LDAP_SUFFIX}`,
    adminGroups: ['nap-admins'],
    timeoutMs: 1_000,
    ...extra,
  };
}

async function login(username: string, password: string) {
  return platform.http('POST', '/login', { body: { user: { username, password } } });
}

async function tokenOf(username: string, password: string): Promise<string> {
  const res = await login(username, password);
  expect(res.status).toBe(200);
  return res.body as string;
}

/** GET /whoami, its groups (`{ id, name, provenance }`) read as their ids, as an account record has them. */
async function whoami(token: string): Promise<Account> {
  const res = await platform.http('GET', '/whoami', { token });
  expect(res.status).toBe(200);
  const body = res.body as Omit<Account, 'groups'> & { groups: { id: string }[] };
  return { ...body, groups: body.groups.map((g) => g.id) };
}

/** What the gateway asks at most once a minute per session: the session's caller, re-checked when due. */
async function resolveSession(token: string) {
  const sid = peekToken(token)?.sid as string;
  return bus.call('admin.resolveSession', { body: { sid } }, { caller: SYSTEM_CALLER });
}

/** Moves the last directory check of the session back beyond any re-check interval. */
async function ageSession(token: string): Promise<void> {
  const sid = peekToken(token)?.sid as string;
  await platform.stores
    .get('admin')
    ?.collection('sessions')
    .updateOne({ _id: sid }, { $set: { checkedAt: 0 } });
}

async function removeMember(group: string, uid: string): Promise<void> {
  const client = await slapd.admin();
  await client.modify(
    groupDn(group),
    new Change({ operation: 'delete', modification: new Attribute({ type: 'member', values: [personDn(uid)] }) }),
  );
}

suite('sign-in with an OpenLDAP directory', () => {
  beforeAll(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'nap-ldap-test-'));
    ca = makeTestCa(path.join(tmp, 'ca'));
    slapd = await startSlapd({ tls: ca });
    await loadDirectory(slapd, PEOPLE, GROUPS);
    // the first start takes the directory from NAP_LDAP_* (here the parsed config those variables give)
    // the gateway remembers Basic credentials 1 s (10 s by default), so the test of that memory waits 1 s
    platform = await startTestPlatform({
      config: { ldap: ldapProvider() as unknown as LdapProviderConfig },
      gateway: { basicCredentialsTtlMs: BASIC_TTL_MS },
    });
    admin = await platform.login();
    bus = createClient(platform.bus);
    // servers and the platform start on a machine that may be busy: more than a test's 30 s
  }, 120_000);

  afterAll(async () => {
    await platform?.stop();
    await slapd?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('takes the directory of the environment into the active profile, its password sealed and answered as ********', async () => {
    const provider = (await activeProfile()).authenticationProps?.providers as Record<string, Record<string, unknown>>;
    expect(provider.ldap).toMatchObject({ type: 'ldap', url: slapd.url, bindPassword: '********', adminGroups: ['nap-admins'] });
    const stored = await platform.stores.get('admin')?.collection('profiles').findOne({ _id: 'default' });
    expect(JSON.stringify(stored)).not.toContain(LDAP_SERVICE_PASSWORD);
  });

  it('signs a directory user in with /login: an account with provenance, their groups as NAP groups, the admin group giving the admin role', async () => {
    const token = await tokenOf('alice', 'alice-pass');
    const me = await whoami(token);
    expect(me).toMatchObject({ username: 'alice', provenance: 'ldap', firstname: 'Alice', email: 'alice@nap.test' });
    expect(me.roles).toContain('admin');
    expect(await groupNames(me.groups)).toEqual(['nap-admins', 'netops']);
    const groups = await groupsByName();
    expect(groups.get('netops')).toMatchObject({ provenance: 'ldap', roles: [] });
    expect(groups.get('nap-admins')).toMatchObject({ provenance: 'ldap', roles: ['admin'] });
    // an admin through the directory group: the admin routes answer
    expect((await platform.http('GET', '/user-management/accounts', { token })).status).toBe(200);
  });

  it('signs a directory user in with Basic credentials and the client credentials grant; a same-named directory group stays apart from local admins', async () => {
    const basic = `Basic ${Buffer.from('bob:bob-pass').toString('base64')}`;
    // signed in (not 401), holding no role yet: /whoami says so, every route that needs a role is 403
    const res = await platform.http('GET', '/whoami', { headers: { authorization: basic } });
    expect(res).toMatchObject({ status: 200, body: { username: 'bob', roles: [] } });
    const me = await accountOf('bob');
    expect(me).toMatchObject({ provenance: 'ldap', roles: [] });
    expect(await groupNames(me.groups)).toEqual(['admins (ldap)', 'netops']);
    expect((await groupsByName()).get('admins')?.provenance).toBeUndefined();
    expect((await platform.http('GET', '/user-management/accounts', { headers: { authorization: basic } })).status).toBe(403);

    const grant = await platform.http('POST', '/oauth/token', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&client_id=bob&client_secret=bob-pass',
    });
    expect(grant.status).toBe(200);
    expect((await resolveSession((grant.body as { access_token: string }).access_token)).body.username).toBe('bob');
    const wrong = await login('bob', 'not-bobs');
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('gives roles to directory groups through the existing routes; a removal from a group takes effect at the next sign-in and at the re-check of an open session', async () => {
    const netops = (await groupsByName()).get('netops') as Group;
    const roles = await platform.http('PUT', `/user-management/groups/${netops._id}/roles`, {
      token: admin,
      body: { roles: ['operations'] },
    });
    expect(roles.status).toBe(200);
    const open = await tokenOf('bob', 'bob-pass');
    expect((await whoami(open)).roles).toEqual(['operations']);

    await removeMember('netops', 'bob');
    // within the re-check interval the open session keeps what the directory said at its sign-in
    expect((await resolveSession(open)).body.roles).toEqual(['operations']);
    // once the interval has passed, renewing the session asks the directory again
    await ageSession(open);
    const renewed = await resolveSession(open);
    expect(renewed.body.roles).toEqual([]);
    expect(await groupNames(renewed.body.groups)).toEqual(['admins (ldap)']);
    // and a new sign-in sees it too
    const again = await tokenOf('bob', 'bob-pass');
    expect((await platform.http('GET', '/whoami', { token: again })).body).toMatchObject({ roles: [] });
    expect((await platform.http('GET', '/operations-manager/jobs', { token: again })).status).toBe(403);
    expect(await groupNames((await accountOf('bob')).groups)).toEqual(['admins (ldap)']);
  });

  it("asks the directory again for a directory user's Basic credentials: the gateway remembers them only briefly", async () => {
    const basic = (password: string) => ({ authorization: `Basic ${Buffer.from(`alice:${password}`).toString('base64')}` });
    expect((await platform.http('GET', '/whoami', { headers: basic('alice-pass') })).status).toBe(200);
    const client = await slapd.admin();
    await client.modify(
      personDn('alice'),
      new Change({ operation: 'replace', modification: new Attribute({ type: 'userPassword', values: ['alice-new-pass'] }) }),
    );
    // the old password stops working once the gateway's short memory of it has passed, never later
    await eventually(
      'the old password refused',
      async () => (await platform.http('GET', '/whoami', { headers: basic('alice-pass') })).status === 401,
      { timeoutMs: BASIC_TTL_MS + 10_000, intervalMs: 200 },
    );
    expect((await platform.http('GET', '/whoami', { headers: basic('alice-new-pass') })).status).toBe(200);
    await client.modify(
      personDn('alice'),
      new Change({ operation: 'replace', modification: new Attribute({ type: 'userPassword', values: ['alice-pass'] }) }),
    );
  });

  it('ends the sessions of a person the directory no longer knows', async () => {
    const token = await tokenOf('carol', 'carol-pass');
    const client = await slapd.admin();
    await client.del(personDn('carol'));
    await ageSession(token);
    await expect(resolveSession(token)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    const again = await resolveSession(token).catch((err: unknown) => err);
    expect(hasCode(again, 'UNAUTHENTICATED')).toBe(true);
    expect((await login('carol', 'carol-pass')).status).toBe(401);
  });

  it('finds nobody for a filter injection, and keeps the local admin local whatever the directory holds', async () => {
    for (const username of ['*)(uid=*', '*', 'al*', 'alice)(|(uid=*']) expect((await login(username, 'alice-pass')).status).toBe(401);
    // a directory person "admin" cannot sign in as NAP's administrator, nor take the account over
    expect((await login('admin', 'directory-admin-pass')).status).toBe(401);
    const me = await whoami(await tokenOf(TEST_ADMIN.username, TEST_ADMIN.password));
    expect(me.provenance).toBeUndefined();
  });

  it('refuses an empty password before any bind: the directory is not even asked', async () => {
    await slapd.pause();
    try {
      // a bind with an empty password would be an anonymous bind, which succeeds; a paused server would make it 503
      const basic = `Basic ${Buffer.from('alice:').toString('base64')}`;
      const res = await platform.http('GET', '/whoami', { headers: { authorization: basic } });
      expect([400, 401]).toContain(res.status);
      expect((await platform.http('POST', '/login', { body: { username: 'alice', password: '' } })).status).toBe(400);
      const directory = new LdapDirectory(
        'direct',
        { ...(ldapProvider() as unknown as LdapProviderConfig), timeoutMs: 500 },
        [],
        createLogger({ name: 't', level: 'silent' }),
      );
      await expect(directory.authenticate('alice', '')).resolves.toEqual({ outcome: 'rejected', reason: 'empty password' });
      // the same directory, asked with a password, does try the paused server
      await expect(directory.authenticate('alice', 'alice-pass')).rejects.toMatchObject({ code: 'AUTH_PROVIDER_UNAVAILABLE' });
    } finally {
      slapd.resume();
    }
  });

  it('answers 503 AUTH_PROVIDER_UNAVAILABLE when the directory does not answer, while local accounts still sign in', async () => {
    const service = await platform.http('POST', '/user-management/accounts', {
      token: admin,
      body: { account: { username: 'automation', password: 'automation-secret' } },
    });
    expect(service.status).toBe(200);
    await slapd.pause();
    try {
      const res = await login('alice', 'alice-pass');
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ code: 'AUTH_PROVIDER_UNAVAILABLE', message: expect.stringContaining('"ldap"') });
      const basic = await platform.http('GET', '/whoami', {
        headers: { authorization: `Basic ${Buffer.from('bob:bob-pass').toString('base64')}` },
      });
      expect(basic.status).toBe(503);
      expect(basic.body).toMatchObject({ code: 'AUTH_PROVIDER_UNAVAILABLE' });
      // break-glass and automation: local accounts do not wait for the directory
      expect((await login(TEST_ADMIN.username, TEST_ADMIN.password)).status).toBe(200);
      const grant = await platform.http('POST', '/oauth/token', {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials&client_id=automation&client_secret=automation-secret',
      });
      expect(grant.status).toBe(200);
    } finally {
      slapd.resume();
    }
    expect((await login('alice', 'alice-pass')).status).toBe(200);
  });

  it('keeps a directory session going on its last groups when the re-check finds the directory down', async () => {
    const token = await tokenOf('alice', 'alice-pass');
    await ageSession(token);
    await slapd.pause();
    try {
      expect((await resolveSession(token)).body.roles).toContain('admin');
    } finally {
      slapd.resume();
    }
  });

  it('tries the next server when one does not answer', async () => {
    const dead = await freePort();
    await setProviders({ ldap: ldapProvider({ url: `ldap://127.0.0.1:${dead} ${slapd.url}`, timeoutMs: 1_000 }) });
    expect((await login('alice', 'alice-pass')).status).toBe(200);
  });

  it('names a userBase or groupBase the directory does not have (No Such Object), as the troubleshooting table says', async () => {
    await setProviders({ ldap: ldapProvider({ userBase: `ou=nobody-here,${LDAP_SUFFIX}` }) });
    const user = await login('alice', 'alice-pass');
    expect(user.status).toBe(503);
    expect((user.body as { message: string }).message).toContain(
      `No Such Object: userBase "ou=nobody-here,${LDAP_SUFFIX}" is not in the directory`,
    );
    await setProviders({ ldap: ldapProvider({ groupBase: `ou=no-groups,${LDAP_SUFFIX}` }) });
    const group = await login('alice', 'alice-pass');
    expect(group.status).toBe(503);
    expect((group.body as { message: string }).message).toContain(`No Such Object: groupBase "ou=no-groups,${LDAP_SUFFIX}"`);
    await setProviders({ ldap: ldapProvider() });
  });

  it('speaks TLS with the CA given, and refuses a server whose certificate it cannot verify', async () => {
    await setProviders({ ldap: ldapProvider({ url: slapd.ldapsUrl, startTls: false }) });
    expect((await login('alice', 'alice-pass')).status).toBe(200);

    const other = makeTestCa(path.join(tmp, 'other-ca'), 'Another CA');
    await setProviders({ ldap: ldapProvider({ url: slapd.ldapsUrl, startTls: false, caFile: other.caFile }) });
    const ldaps = await login('alice', 'alice-pass');
    expect(ldaps.status).toBe(503);
    expect((ldaps.body as { message: string }).message).toMatch(/certificate/i);

    await setProviders({ ldap: ldapProvider({ caFile: other.caFile }) });
    const startTls = await login('alice', 'alice-pass');
    expect(startTls.status).toBe(503);
    expect((startTls.body as { message: string }).message).toMatch(/certificate/i);
  });

  it('finds groups by a group search where the directory has no memberOf', async () => {
    await setProviders({ ldap: ldapProvider({ groupBase: `ou=groups,${LDAP_SUFFIX}` }) });
    const me = await whoami(await tokenOf('alice', 'alice-pass'));
    expect(await groupNames(me.groups)).toEqual(['nap-admins', 'netops']);
    expect(me.roles).toContain('admin');
    // a provider's own filter: only groupOfNames, by member
    await addPerson(slapd, { uid: 'dave', password: 'dave-pass' });
    const client = await slapd.admin();
    await client.modify(
      groupDn('netops'),
      new Change({ operation: 'add', modification: new Attribute({ type: 'member', values: [personDn('dave')] }) }),
    );
    await setProviders({
      ldap: ldapProvider({ groupBase: `ou=groups,${LDAP_SUFFIX}`, groupFilter: '(&(objectClass=groupOfNames)(member={{dn}}))' }),
    });
    expect(await groupNames((await whoami(await tokenOf('dave', 'dave-pass'))).groups)).toEqual(['netops']);
  });

  it('takes the admin role back from a group that is no longer an admin group', async () => {
    await setProviders({ ldap: ldapProvider({ adminGroups: [] }) });
    const me = await whoami(await tokenOf('alice', 'alice-pass'));
    expect(me.roles).not.toContain('admin');
    expect((await groupsByName()).get('nap-admins')?.roles).toEqual([]);
    await setProviders({ ldap: ldapProvider() });
    expect((await whoami(await tokenOf('alice', 'alice-pass'))).roles).toContain('admin');
  });

  it('refuses a provider that is not right, naming the member, and changes nothing', async () => {
    const profile = await activeProfile();
    const res = await platform.http('PUT', '/profiles/default', {
      token: admin,
      body: {
        properties: { ...profile, authenticationProps: { providers: { ldap: ldapProvider({ userFilter: '(uid=alice)' }) } } },
      },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining('authenticationProps.providers.ldap.userFilter'),
    });
    expect((await activeProfile()).authenticationProps?.providers).toEqual(profile.authenticationProps?.providers);
  });

  it('keeps the password of a directory account in the directory, and signs nobody in with a disabled provider', async () => {
    const alice = await whoami(await tokenOf('alice', 'alice-pass'));
    const res = await platform.http('PUT', `/user-management/accounts/${alice._id}/password`, {
      token: admin,
      body: { password: 'nap-password-1' },
    });
    expect(res.status).toBe(422);
    expect((await login('alice', '')).status).toBe(400);
    await setProviders({ ldap: ldapProvider({ enabled: false }) });
    expect((await login('alice', 'alice-pass')).status).toBe(401);
    await setProviders({ ldap: ldapProvider() });
  });
});
