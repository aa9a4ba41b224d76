import type { Static } from '@sinclair/typebox';
import { arr, bool, closed, int, literal, name, obj, oneOf, open, str, strings, withId } from './common';

/**
 * External sign-in methods: the providers of the active profile's `authenticationProps.providers`,
 * keyed by a name of the operator's choosing. That name is the `provenance` of every account and
 * group a provider brings in. Each type has its own closed schema below; the profile schema checks
 * only `type` and `enabled`, and the admin service checks the rest by type, naming the member.
 *
 * Password methods (`ldap`, `radius`) take a username and password on `POST /login`,
 * `POST /oauth/token` and Basic credentials. Browser methods (`oidc`, `saml`) send the browser to an
 * identity provider from `GET /sso/login` and take it back at `GET /sso/callback` (OIDC) or
 * `POST /sso/saml/acs` (SAML); their redirect URI and assertion consumer derive from `NAP_PUBLIC_URL`.
 */
export const SIGN_IN_PROVIDER_TYPES = ['ldap', 'radius', 'oidc', 'saml'] as const;
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

/** Members of the browser methods: what the console's button says. */
const browser = {
  label: str({
    minLength: 1,
    maxLength: 64,
    description: 'what the console\'s button says: "Sign in with <label>"; default the provider\'s name',
  }),
};

/** Default scopes asked of an OpenID provider. */
export const DEFAULT_OIDC_SCOPES = ['openid', 'profile', 'email', 'groups'] as const;

/**
 * An OpenID Connect provider (Entra ID, Okta, Keycloak, …): the authorization code flow with PKCE,
 * the provider's configuration by discovery, its signed ID token checked (issuer, audience, expiry,
 * nonce), groups from a claim. NAP's redirect URI is `<NAP_PUBLIC_URL>/sso/callback`.
 */
export const oidcProviderSchema = withId(
  'nap:schemas/oidc-provider',
  closed(
    {
      type: literal('oidc'),
      ...common,
      ...browser,
      issuer: name('the issuer URL (https; http only on a loopback address); its /.well-known/openid-configuration is read'),
      clientId: name('the client id NAP has at the provider'),
      clientSecret: str({
        minLength: 1,
        description: 'the client secret; sealed at rest, answered as ********. None: a public client (PKCE only)',
      }),
      scopes: strings({ minItems: 1, description: `scopes asked for; default ${DEFAULT_OIDC_SCOPES.join(' ')} (must hold openid)` }),
      groupsClaim: str({
        minLength: 1,
        description:
          'the claim (of the ID token, else of the userinfo answer) whose values are the groups; a dotted path reaches into objects (realm_access.roles); default groups',
      }),
      usernameClaim: str({ minLength: 1, description: 'the claim that is the NAP username; default preferred_username' }),
    },
    ['type', 'issuer', 'clientId'],
  ),
);
/** An OIDC provider's configuration. */
export type OidcProviderConfig = Static<typeof oidcProviderSchema>;

/**
 * A SAML 2.0 identity provider (Entra ID, Okta, PingID, AD FS), NAP its service provider: the IdP's
 * metadata imported, a signed response or assertion required, audience, recipient, `NotOnOrAfter`
 * and `InResponseTo` checked, replays refused, groups from an attribute. NAP's assertion consumer is
 * `<NAP_PUBLIC_URL>/sso/saml/acs`, its metadata `GET /sso/saml/metadata?provider=<name>`.
 */
export const samlProviderSchema = withId(
  'nap:schemas/saml-provider',
  closed(
    {
      type: literal('saml'),
      ...common,
      ...browser,
      idpMetadata: name(
        "the identity provider's metadata: an https URL (http only on a loopback address), an absolute file path, or the XML itself",
      ),
      spEntityId: str({
        minLength: 1,
        description: "NAP's entity id (the audience the IdP names); default <NAP_PUBLIC_URL>/sso/saml/metadata",
      }),
      groupsAttribute: str({ minLength: 1, description: 'the attribute whose values are the groups; default groups' }),
      usernameAttribute: str({ minLength: 1, description: 'the attribute that is the NAP username; default the NameID' }),
      wantAssertionsSigned: bool({
        description: 'require the assertion itself to be signed; default false (a signed response or assertion is always required)',
      }),
      wantResponseSigned: bool({
        description: 'require the whole response to be signed; default false (a signed response or assertion is always required)',
      }),
    },
    ['type', 'idpMetadata'],
  ),
);
/** A SAML provider's configuration. */
export type SamlProviderConfig = Static<typeof samlProviderSchema>;

// ---- the routes of browser sign-in ----

/** `GET /sso/methods`: the enabled browser methods, for the console's "Sign in with …" buttons. */
export const ssoMethodsSchema = withId(
  'nap:schemas/sso-methods',
  closed(
    {
      results: arr(
        closed(
          {
            name: name('the provider: the value of ?provider= of GET /sso/login'),
            label: name('what the button says after "Sign in with"'),
            type: oneOf(['oidc', 'saml'] as const, { description: 'the kind of method' }),
          },
          ['name', 'label', 'type'],
        ),
      ),
    },
    ['results'],
  ),
);
export type SsoMethods = Static<typeof ssoMethodsSchema>;

/** The query of `GET /sso/login`. */
export const ssoLoginQuerySchema = obj({
  provider: str({ minLength: 1, description: 'the browser method to sign in with; may be left out when only one is enabled' }),
  returnTo: str({
    minLength: 1,
    maxLength: 2_048,
    description: 'where the browser goes once signed in: a path of this platform (/console/…); default /console/',
  }),
});

/** What the admin service answers the gateway for `GET /sso/login`: it redirects the browser there and binds the state to it. */
export const ssoRedirectSchema = withId(
  'nap:schemas/sso-redirect',
  closed(
    {
      redirectUrl: name('the identity provider URL carrying the request (the Location of the 302)'),
      state: name('the sign-in under way: the value of the nap_sso cookie the gateway sets'),
    },
    ['redirectUrl', 'state'],
  ),
);

/** The query of `GET /sso/callback`: what the OpenID provider sends back. */
export const ssoCallbackQuerySchema = obj({
  state: str({ description: 'the sign-in under way, as GET /sso/login began it' }),
  code: str({ description: 'the authorization code' }),
  iss: str({ description: 'the issuer (RFC 9207)' }),
  error: str({ description: 'the provider refused: its error code' }),
  error_description: str({ description: 'and its description' }),
});

/** The form of `POST /sso/saml/acs` (HTTP-POST binding). */
export const samlAcsBodySchema = closed(
  {
    SAMLResponse: name('the base64 SAML Response'),
    RelayState: str({ description: 'the sign-in under way, as GET /sso/login began it' }),
  },
  ['SAMLResponse'],
);

/** What the admin service answers the gateway at the end of a browser sign-in: the gateway sets the token cookie and redirects. */
export const ssoSignedInSchema = withId(
  'nap:schemas/sso-signed-in',
  closed(
    {
      token: name('the session token: set as the token cookie, never written to the browser'),
      returnTo: name('the path of this platform the browser is sent to (the Location of the 303)'),
    },
    ['token', 'returnTo'],
  ),
);
