import { hasCode } from '@nap/contracts';
import {
  adminGroupsOf,
  adminRoleChange,
  claimAt,
  groupNamesOf,
  groupsAfterSignIn,
  identityProviderUrlProblem,
  newGroupName,
  providersOf,
  radiusServer,
  recheckDue,
  safeReturnPath,
  sameGroupName,
  seededAuthenticationProps,
  serverTimeoutMs,
} from './sign-in';

const ldap = { type: 'ldap', url: 'ldaps://dc1.example.net', userBase: 'ou=people,dc=example,dc=net' };

function refusal(props: unknown): { member: string; message: string } {
  try {
    providersOf(props, 'body.properties.authenticationProps');
  } catch (err) {
    expect(hasCode(err, 'VALIDATION_FAILED')).toBe(true);
    const details = (err as { details: { member: string; message: string }[] }).details;
    return details[0] as { member: string; message: string };
  }
  throw new Error('not refused');
}

describe('providers of a profile', () => {
  it('reads each provider by its type, in the order written', () => {
    const providers = providersOf(
      { providers: { corp: ldap, aaa: { type: 'radius', servers: ['10.0.0.1', '10.0.0.2:1645'], secret: 's' } } },
      'authenticationProps',
    );
    expect(providers.map((p) => [p.name, p.config.type])).toEqual([
      ['corp', 'ldap'],
      ['aaa', 'radius'],
    ]);
    expect(providersOf({}, 'x')).toEqual([]);
  });

  it('refuses what is not right, naming the member', () => {
    expect(refusal({ providers: { corp: { ...ldap, url: 'http://dc1' } } }).member).toBe(
      'body.properties.authenticationProps.providers.corp.url',
    );
    expect(refusal({ providers: { corp: { ...ldap, userFilter: '(uid=alice)' } } }).member).toMatch(/corp\.userFilter$/);
    expect(refusal({ providers: { corp: { ...ldap, nestedGroups: true } } }).member).toMatch(/corp\.nestedGroups$/);
    expect(refusal({ providers: { corp: { ...ldap, bindDN: 'cn=svc' } } }).member).toMatch(/corp\.bindPassword$/);
    expect(refusal({ providers: { corp: { ...ldap, startTls: true } } }).member).toMatch(/corp\.startTls$/);
    expect(refusal({ providers: { corp: { ...ldap, colour: 'blue' } } }).message).toMatch(/colour/);
    expect(refusal({ providers: { corp: { ...ldap, type: 'kerberos' } } }).member).toMatch(/corp\.type$/);
    expect(refusal({ providers: { local: ldap } }).message).toMatch(/not "local"/);
    expect(refusal({ providers: { aaa: { type: 'radius', servers: ['host:99999'], secret: 's' } } }).member).toMatch(/aaa\.servers$/);
    expect(refusal({ providers: { aaa: { type: 'radius', servers: ['a', 'b'], secret: 's', timeoutMs: 5000 } } }).member).toMatch(
      /aaa\.timeoutMs$/,
    );
  });

  it('gives each server a timeout that keeps a whole sign-in within the budget', () => {
    expect(serverTimeoutMs({ type: 'ldap', url: 'ldap://a', userBase: 'x' })).toBe(5000);
    expect(serverTimeoutMs({ type: 'ldap', url: 'ldap://a ldap://b,ldap://c', userBase: 'x' })).toBe(3000);
    expect(serverTimeoutMs({ type: 'radius', servers: ['a', 'b'], secret: 's', timeoutMs: 1200 })).toBe(1200);
  });

  it('reads RADIUS servers as host and port', () => {
    expect(radiusServer('radius1.example.net')).toEqual({ host: 'radius1.example.net', port: 1812 });
    expect(radiusServer('127.0.0.1:1645')).toEqual({ host: '127.0.0.1', port: 1645 });
    expect(radiusServer('[::1]:1812')).toEqual({ host: '::1', port: 1812 });
    expect(radiusServer('a:b:c')).toBeUndefined();
  });

  it("takes admin groups from the provider and from the profile's admins of its provenance", () => {
    const provider = { name: 'corp', config: { ...ldap, type: 'ldap' as const, adminGroups: ['nap-admins'] } };
    const admins = [
      { group: 'Domain Admins', provenance: 'corp' },
      { group: 'pronghorn_admin', provenance: 'Local AAA' },
    ];
    expect(adminGroupsOf(provider, { admins })).toEqual(['nap-admins', 'Domain Admins']);
  });

  it('adds the providers of the environment only where the profile has none of that name', () => {
    const env = { ldap: { ...ldap, type: 'ldap' as const }, radius: undefined };
    expect(seededAuthenticationProps({ logoutTime: 5 }, env)).toEqual({ logoutTime: 5, providers: { ldap: env.ldap } });
    expect(seededAuthenticationProps({ providers: { ldap: { ...ldap, url: 'ldap://other' } } }, env)).toBeUndefined();
  });
});

describe('groups of a sign-in', () => {
  it('compares group names without case, as directories do', () => {
    expect(sameGroupName('NAP-Admins', 'nap-admins')).toBe(true);
    expect(sameGroupName('nap-admins', 'nap-admin')).toBe(false);
    expect(sameGroupName('Équipe', 'e\u0301quipe')).toBe(true);
    // letters that only look alike are other names: a person may be free to name a group at the provider
    for (const lookalike of ['ｎａｐ-ａｄｍｉｎｓ', 'ⓝap-admins', 'nap-ad\u00admins', 'nap-ad\u200bmins', 'nap-admins\u0000', 'nap-édmins'])
      expect({ lookalike, same: sameGroupName('nap-admins', lookalike) }).toEqual({ lookalike, same: false });
  });

  it('never merges a directory group into a group of the same name', () => {
    expect(newGroupName('netops', 'corp', false)).toBe('netops');
    expect(newGroupName('admins', 'corp', true)).toBe('admins (corp)');
  });

  it('gives the admin role to admin groups and takes back only what it gave', () => {
    expect(adminRoleChange({ roles: ['operations'] }, true)).toEqual({ roles: ['operations', 'admin'], adminFromConfig: true });
    expect(adminRoleChange({ roles: ['admin'], adminFromConfig: true }, true)).toBeUndefined();
    expect(adminRoleChange({ roles: ['operations', 'admin'], adminFromConfig: true }, false)).toEqual({
      roles: ['operations'],
      adminFromConfig: false,
    });
    // given by an administrator through the routes: stays
    expect(adminRoleChange({ roles: ['admin'] }, false)).toBeUndefined();
  });

  it("replaces the account's groups of that method and keeps the others", () => {
    const provenance = new Map([
      ['local-1', undefined],
      ['corp-old', 'corp'],
      ['other-1', 'aaa'],
    ]);
    expect(groupsAfterSignIn(['local-1', 'corp-old', 'other-1'], provenance, 'corp', ['corp-new'])).toEqual([
      'local-1',
      'other-1',
      'corp-new',
    ]);
  });

  it('re-checks a session once the interval has passed, not before', () => {
    expect(recheckDue(0, 14 * 60_000, 15)).toBe(false);
    expect(recheckDue(0, 15 * 60_000, 15)).toBe(true);
  });
});

describe('browser sign-in', () => {
  const oidc = { type: 'oidc', issuer: 'https://login.example.com/tenant/v2.0', clientId: 'nap' };
  const saml = { type: 'saml', idpMetadata: 'https://idp.example.com/metadata' };

  it('reads OIDC and SAML providers and refuses what is not right, naming the member', () => {
    const providers = providersOf({ providers: { entra: oidc, okta: saml } }, 'authenticationProps');
    expect(providers.map((p) => [p.name, p.config.type])).toEqual([
      ['entra', 'oidc'],
      ['okta', 'saml'],
    ]);
    expect(refusal({ providers: { entra: { ...oidc, issuer: 'http://login.example.com' } } }).member).toMatch(/entra\.issuer$/);
    expect(refusal({ providers: { entra: { ...oidc, scopes: ['profile'] } } }).member).toMatch(/entra\.scopes$/);
    expect(refusal({ providers: { entra: { type: 'oidc', issuer: 'https://x' } } }).message).toMatch(/clientId/);
    expect(refusal({ providers: { okta: { ...saml, idpMetadata: 'metadata.xml' } } }).member).toMatch(/okta\.idpMetadata$/);
    expect(refusal({ providers: { okta: { ...saml, idpMetadata: 'http://idp.example.com/m' } } }).member).toMatch(/okta\.idpMetadata$/);
    expect(providersOf({ providers: { t: { ...saml, idpMetadata: '<EntityDescriptor/>' } } }, 'a')).toHaveLength(1);
  });

  it('reaches identity providers over https, http only on a loopback address', () => {
    expect(identityProviderUrlProblem('https://idp.example')).toBeUndefined();
    expect(identityProviderUrlProblem('http://127.0.0.1:9000')).toBeUndefined();
    expect(identityProviderUrlProblem('http://localhost:9000')).toBeUndefined();
    expect(identityProviderUrlProblem('http://[::1]:9000')).toBeUndefined();
    expect(identityProviderUrlProblem('http://idp.example')).toMatch(/https/);
    expect(identityProviderUrlProblem('http://127.0.0.1.evil.example')).toMatch(/https/);
    expect(identityProviderUrlProblem('not a url')).toMatch(/not a URL/);
  });

  it('sends the browser back to a path of this platform only', () => {
    expect(safeReturnPath(undefined)).toBe('/console/');
    expect(safeReturnPath('/console/jobs?state=running#top')).toBe('/console/jobs?state=running#top');
    for (const bad of ['//evil.example', '/\\evil.example', 'https://evil.example/', 'console', '/\t/evil.example', '/a\nb', ''])
      expect({ bad, path: safeReturnPath(bad) }).toEqual({ bad, path: undefined });
    expect(safeReturnPath('/../../console')).toBe('/console');
    // dot segments that resolve to a path beginning with // (a scheme-relative URL of another site)
    for (const bad of ['/console/..//evil.example', '/.//evil.example', '/%2e%2e//evil.example/x'])
      expect({ bad, path: safeReturnPath(bad) }).toEqual({ bad, path: undefined });
  });

  it('reads groups and usernames from claims, dotted paths reaching into objects', () => {
    const claims = { groups: ['a', 'b', 3], 'realm_access.x': 'kept', realm_access: { roles: ['r1'] }, single: 'one' };
    expect(groupNamesOf(claimAt(claims, 'groups'))).toEqual(['a', 'b']);
    expect(groupNamesOf(claimAt(claims, 'realm_access.roles'))).toEqual(['r1']);
    expect(claimAt(claims, 'realm_access.x')).toBe('kept');
    expect(groupNamesOf(claimAt(claims, 'single'))).toEqual(['one']);
    expect(groupNamesOf(claimAt(claims, 'missing.path'))).toEqual([]);
  });
});
