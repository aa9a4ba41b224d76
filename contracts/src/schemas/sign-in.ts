import type { Static } from '@sinclair/typebox';
import { bool, closed, int, literal, name, oneOf, open, str, strings, withId } from './common';

/**
 * External sign-in methods: the providers of the active profile's `authenticationProps.providers`,
 * keyed by a name of the operator's choosing. That name is the `provenance` of every account and
 * group a provider brings in. Each type has its own closed schema below; the profile schema checks
 * only `type` and `enabled`, and the admin service checks the rest by type, naming the member.
 *
 * Password methods (`ldap`, `radius`) take a username and password on `POST /login`,
 * `POST /oauth/token` and Basic credentials. Browser methods (OIDC, SAML) are added beside them with
 * a schema of their own and their type in {@link SIGN_IN_PROVIDER_TYPES}.
 */
export const SIGN_IN_PROVIDER_TYPES = ['ldap', 'radius'] as const;
/** A type of external sign-in method. */
export type SignInProviderType = (typeof SIGN_IN_PROVIDER_TYPES)[number];

/** Default `recheckMinutes`: how long a session of a directory user goes before the directory is asked again. */
export const DEFAULT_RECHECK_MINUTES = 15;

/** Members every provider has, whatever its type. */
const common = {
  enabled: bool({ description: 'false keeps the configuration but signs nobody in with it; default true' }),
  adminGroups: strings({ description: 'group names (as the method names them) whose members hold the admin role' }),
  recheckMinutes: int({
    minimum: 1,
    maximum: 10_080,
    description: `a session is checked with the method again when it is resolved this long after the last check; default ${DEFAULT_RECHECK_MINUTES}`,
  }),
  timeoutMs: int({
    minimum: 100,
    maximum: 9_000,
    description: 'how long one server is given to answer, ms; then the next is tried, and 503 AUTH_PROVIDER_UNAVAILABLE when none answered',
  }),
};

/** The profile's view of a provider: its type and whether it is on; the rest is checked by type. */
export const signInProviderSchema = open(
  { type: oneOf(SIGN_IN_PROVIDER_TYPES, { description: 'the sign-in method' }), enabled: common.enabled },
  ['type'],
  { description: 'an external sign-in method; members by type (docs/authentication.md)' },
);

/** An LDAP v3 directory (OpenLDAP, Active Directory): a service bind, a user search, a bind as the user, groups. */
export const ldapProviderSchema = withId(
  'nap:schemas/ldap-provider',
  closed(
    {
      type: literal('ldap'),
      ...common,
      url: name('ldap:// or ldaps:// URL; several, separated by spaces or commas, are tried in turn'),
      bindDN: str({ description: 'DN of the service account that searches; none: an anonymous search' }),
      bindPassword: str({ description: 'its password; sealed at rest, answered as ********' }),
      userBase: name('where users are searched, for example ou=people,dc=example,dc=net'),
      userFilter: str({
        minLength: 1,
        description: 'search filter with {{username}} (escaped); default (|(uid={{username}})(sAMAccountName={{username}}))',
      }),
      groupBase: str({ description: 'where groups are searched; unset: groups from the memberOf attribute of the user entry' }),
      groupFilter: str({
        minLength: 1,
        description:
          'group search filter with {{dn}} and {{username}} (escaped); default (|(member={{dn}})(uniqueMember={{dn}})(memberUid={{username}}))',
      }),
      nestedGroups: bool({
        description:
          'Active Directory: the group search also finds groups of groups, with the matching-rule-in-chain filter (member:1.2.840.113556.1.4.1941:={{dn}}); needs groupBase',
      }),
      groupNameAttribute: str({ minLength: 1, description: 'attribute that names a group; default cn' }),
      caFile: str({
        minLength: 1,
        description: 'PEM file of the certificate authorities that sign the server certificate (ldaps://, StartTLS)',
      }),
      startTls: bool({ description: 'upgrade ldap:// connections with StartTLS before binding; default false' }),
    },
    ['type', 'url', 'userBase'],
  ),
);
/** An LDAP provider's configuration. */
export type LdapProviderConfig = Static<typeof ldapProviderSchema>;

/** A RADIUS server pair (PAP, a shared secret): for teams that authenticate engineers against their network AAA. */
export const radiusProviderSchema = withId(
  'nap:schemas/radius-provider',
  closed(
    {
      type: literal('radius'),
      ...common,
      servers: strings({ minItems: 1, maxItems: 4, description: 'host:port of each server (port 1812 when left out), tried in turn' }),
      secret: name('the shared secret of NAP as a client of the servers; sealed at rest, answered as ********'),
      groupsAttribute: str({
        minLength: 1,
        description: 'reply attribute whose values (one per attribute) are the groups of the person; default Class',
      }),
      nasIdentifier: str({ minLength: 1, description: 'NAS-Identifier sent with each request; default nap' }),
      messageAuthenticator: bool({
        description:
          'send a Message-Authenticator and believe only replies that carry a right one (BlastRADIUS, CVE-2024-3596); default true. false only for servers that cannot sign replies',
      }),
    },
    ['type', 'servers', 'secret'],
  ),
);
/** A RADIUS provider's configuration. */
export type RadiusProviderConfig = Static<typeof radiusProviderSchema>;
