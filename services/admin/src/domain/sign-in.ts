import {
  AppError,
  DEFAULT_RECHECK_MINUTES,
  ldapProviderSchema,
  oidcProviderSchema,
  parseAs,
  radiusProviderSchema,
  samlProviderSchema,
} from '@nap/contracts';
import type { LdapProviderConfig, OidcProviderConfig, RadiusProviderConfig, Role, SamlProviderConfig } from '@nap/contracts';
import { isRecord, ownValue } from '@nap/util';
import type { GroupRecord } from '../store/groups';
import { invalidMember } from './validation-error';

/**
 * External sign-in: the framework every method outside NAP's own accounts plugs into. A method
 * answers who a person is and which groups they are in there (an {@link ExternalIdentity}); the
 * admin service does the rest the same way for every method: the account (created at the first
 * sign-in, `provenance` the provider's name), the groups (a NAP group per directory group, created
 * the first time one of its members signs in), the admin role of the admin groups, the session and
 * its token, and the re-check of open sessions.
 *
 * Two shapes of method fit:
 * - a password method ({@link PasswordMethod}: LDAP, RADIUS) checks a username and password given
 *   to `POST /login`, `POST /oauth/token` or as Basic credentials;
 * - a browser method ({@link BrowserMethod}: OIDC, SAML) sends the browser to the identity provider
 *   (`start`) and reads what comes back to the callback (`finish`).
 */

/** Who a person is according to a sign-in method. */
export interface ExternalIdentity {
  /** The NAP username: what the person typed (password methods) or the claim/attribute the method names (browser methods). */
  username: string;
  /** Where the method keeps the person: an LDAP DN, an OIDC `sub`, a SAML NameID; what a re-check looks up. */
  externalId?: string;
  firstname?: string;
  lastname?: string;
  email?: string;
  /** The groups the person is in, named as the method names them (an LDAP group's cn, a claim's values). */
  groups: string[];
  /**
   * What the method needs to confirm the person later without them: an OIDC refresh token. A
   * secret: kept sealed with the session, never answered or logged.
   */
  renewal?: string;
}

/** What every method has, whatever its shape. */
interface MethodBase {
  /** The provider's name in `authenticationProps.providers`: the `provenance` of what it brings in. */
  readonly name: string;
  readonly type: string;
  /** Group names (as the method names them) whose members hold the admin role. */
  readonly adminGroups: readonly string[];
  /** Minutes between two checks of an open session with the method. */
  readonly recheckMinutes: number;
  /**
   * Looks the person up again without their credentials, for the re-check of an open session:
   * the identity as it is now, null when the method no longer knows them (then their sessions end);
   * 503 `AUTH_PROVIDER_UNAVAILABLE` when it does not answer (the session goes on as it was and is
   * checked at its next use). Absent when the method cannot (RADIUS, a browser method without a
   * refresh token): its sessions end when a re-check falls due, and the person signs in again.
   */
  recheck?(account: { username: string; externalId?: string | undefined; renewal?: string | undefined }): Promise<ExternalIdentity | null>;
  /** True when `recheck` needs the session's `renewal` (OIDC): a session begun without one ends when its re-check falls due. */
  readonly recheckNeedsRenewal?: boolean;
  /**
   * Why the person signing in (`identity`) is not the one the account of that username is bound to
   * (`boundTo`, the account's `externalId`), in words that follow "the account "…" ": undefined when
   * it is. A sign-in under the username of an account bound to another person of the method (a
   * changed or reused `preferred_username` or email) is refused rather than given the account. OIDC
   * binds to the `sub` ({@link boundToSubject}); SAML to a persistent NameID, or to the issuer when
   * NameIDs are transient. Absent: accounts are not bound (LDAP, RADIUS: the username is the person).
   */
  samePerson?(boundTo: string | undefined, identity: ExternalIdentity): string | undefined;
  /**
   * Gives a session's `renewal` back to the provider when the session ends (OIDC token revocation,
   * RFC 7009, where the provider offers it), so that a refresh token outlives no session.
   */
  revoke?(renewal: string): Promise<void>;
  /** Closes connections and sockets; called when the configuration changes or the service stops. */
  close(): Promise<void>;
}

/** What a password method says of a username and password. */
export type PasswordOutcome =
  | { outcome: 'accepted'; identity: ExternalIdentity }
  /** The method knows the person and the password is wrong (or the account is locked there): no other method is asked. */
  | { outcome: 'rejected'; reason: string }
  /** The method does not know the username: the next method is asked. */
  | { outcome: 'unknown' };

/** A method that checks a username and password (LDAP, RADIUS). */
export interface PasswordMethod extends MethodBase {
  readonly kind: 'password';
  /**
   * Checks the password with the method. Never called with an empty password (the framework refuses
   * it first). 503 `AUTH_PROVIDER_UNAVAILABLE` when no server answered within the timeout.
   */
  authenticate(username: string, password: string): Promise<PasswordOutcome>;
}

/** A browser sign-in begun: where to send the browser, and what to keep until it comes back. */
export interface BrowserStart {
  /** The identity provider's URL with the request (authorization request, SAML AuthnRequest). */
  redirectUrl: string;
  /** Kept by the framework under `state` until the callback (once only): PKCE verifier, nonce, request id. */
  pending: Record<string, string>;
  /** The value the identity provider hands back unchanged (`state`, `RelayState`): the key of `pending`. */
  state: string;
}

/** A method that signs in through the browser (OIDC, SAML). */
export interface BrowserMethod extends MethodBase {
  readonly kind: 'browser';
  /** What the console's button says: "Sign in with <label>". */
  readonly label: string;
  /** Begins a sign-in (`GET /sso/login`). */
  start(): Promise<BrowserStart>;
  /**
   * Finishes it from what the browser brought to the callback (`query` of a redirect, `form` of a
   * POST binding) and what `start` kept: the identity, or 401 `UNAUTHENTICATED` naming the check
   * that failed (signature, issuer, audience, expiry, nonce, InResponseTo, replay).
   */
  finish(
    callback: { query: Record<string, string>; form: Record<string, string> },
    pending: Record<string, string>,
    context: BrowserFinishContext,
  ): Promise<ExternalIdentity>;
  /** The service provider metadata to give the identity provider (SAML); absent when the method has none. */
  serviceProviderMetadata?(): string;
}

/** What the framework lends a browser method to finish a sign-in. */
export interface BrowserFinishContext {
  /** The state the callback named, whose pending record the framework took (once only). */
  state: string;
  /**
   * Records the first use of a one-time id (a SAML assertion id) until `expiresAt` (epoch ms), in the
   * admin store so that every replica knows it: false when it was used before (a replay).
   */
  firstUse(id: string, expiresAt: number): Promise<boolean>;
}

/** Any sign-in method. */
export type SignInMethod = PasswordMethod | BrowserMethod;

// ---- configuration ----

/** A provider of the active profile, checked by its type. */
export type ProviderConfig = LdapProviderConfig | RadiusProviderConfig | OidcProviderConfig | SamlProviderConfig;

/** A provider with its name. */
export interface NamedProvider {
  name: string;
  config: ProviderConfig;
}

/** The schema of each type of provider; a browser method adds its own here. */
const PROVIDER_SCHEMAS = {
  ldap: ldapProviderSchema,
  radius: radiusProviderSchema,
  oidc: oidcProviderSchema,
  saml: samlProviderSchema,
} as const;

/** Names of providers: they become the provenance of accounts and groups, and are written in group names. */
const PROVIDER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;

/** `local` is NAP's own accounts: no provider may take that name. */
export const LOCAL_PROVENANCE = 'local';

/**
 * The providers of a profile's `authenticationProps`, each checked against its type's schema, in
 * the order written (password methods are asked in that order). 400 naming the member (`at` is
 * where `authenticationProps` sits in the request) when one is not right.
 */
export function providersOf(authenticationProps: unknown, at: string): NamedProvider[] {
  const auth = isRecord(authenticationProps) ? authenticationProps : {};
  const providers = isRecord(auth.providers) ? auth.providers : {};
  const out: NamedProvider[] = [];
  for (const [name, value] of Object.entries(providers)) {
    const here = `${at}.providers.${name}`;
    if (!PROVIDER_NAME.test(name) || name.toLowerCase() === LOCAL_PROVENANCE)
      throw invalidMember(`${at}.providers`, `names a provider "${name}"; a name is letters, digits, ".", "_" and "-" (not "local")`);
    const type = isRecord(value) ? value.type : undefined;
    const schema =
      typeof type === 'string' && type in PROVIDER_SCHEMAS ? PROVIDER_SCHEMAS[type as keyof typeof PROVIDER_SCHEMAS] : undefined;
    if (schema === undefined)
      throw invalidMember(`${here}.type`, `is ${JSON.stringify(type)}; one of ${Object.keys(PROVIDER_SCHEMAS).join(', ')}`);
    const config = parseAs(schema, value, here) as ProviderConfig;
    checkProvider(config, here);
    out.push({ name, config });
  }
  return out;
}

/**
 * The longest a password method may take over one sign-in, ms: every server's timeout added up
 * stays below the login's own deadline (10 s), so that a directory that does not answer gives 503
 * `AUTH_PROVIDER_UNAVAILABLE` and not a gateway timeout.
 */
export const SIGN_IN_BUDGET_MS = 9_000;

/** How many servers a provider asks in turn (an identity provider of a browser method counts as one). */
function serverCount(config: ProviderConfig): number {
  if (config.type === 'ldap') return ldapUrls(config).length;
  if (config.type === 'radius') return config.servers.length;
  return 1;
}

/** How long one server is given when the provider names no timeout: 5 s, less when several servers must fit in the budget. */
export function serverTimeoutMs(config: ProviderConfig): number {
  return config.timeoutMs ?? Math.min(5_000, Math.floor(SIGN_IN_BUDGET_MS / Math.max(1, serverCount(config))));
}

/** What the schemas cannot say: placeholders, URLs, server addresses, timeouts. */
function checkProvider(config: ProviderConfig, at: string): void {
  const servers = serverCount(config);
  if (config.timeoutMs !== undefined && config.timeoutMs * servers > SIGN_IN_BUDGET_MS)
    throw invalidMember(
      `${at}.timeoutMs`,
      `is ${config.timeoutMs} ms for each of ${servers} servers; together they must stay within ${SIGN_IN_BUDGET_MS} ms (the sign-in's own deadline)`,
    );
  if (config.type === 'ldap') {
    for (const url of ldapUrls(config))
      if (!/^ldaps?:\/\/[^/?#\s]+\/?$/.test(url))
        throw invalidMember(`${at}.url`, `holds "${url}"; an LDAP URL is ldap://host[:port] or ldaps://host[:port]`);
    if (config.userFilter !== undefined && !config.userFilter.includes('{{username}}'))
      throw invalidMember(`${at}.userFilter`, 'has no {{username}}: the filter must name the person signing in');
    if (config.groupFilter !== undefined && !/\{\{(dn|username)\}\}/.test(config.groupFilter))
      throw invalidMember(`${at}.groupFilter`, 'has neither {{dn}} nor {{username}}: the filter must name the person');
    if (config.nestedGroups && config.groupBase === undefined)
      throw invalidMember(`${at}.nestedGroups`, 'needs groupBase: nested groups are found by a group search');
    if (config.startTls && ldapUrls(config).some((url) => url.startsWith('ldaps://')))
      throw invalidMember(`${at}.startTls`, 'is true but the URL is ldaps:// (TLS from the start): keep one');
    if ((config.bindDN === undefined) !== (config.bindPassword === undefined))
      throw invalidMember(`${at}.bindPassword`, 'and bindDN go together (neither: an anonymous search)');
  } else if (config.type === 'radius') {
    for (const server of config.servers)
      if (radiusServer(server) === undefined) throw invalidMember(`${at}.servers`, `holds "${server}"; a server is host:port`);
  } else if (config.type === 'oidc') {
    const problem = identityProviderUrlProblem(config.issuer);
    if (problem !== undefined) throw invalidMember(`${at}.issuer`, `is "${config.issuer}": ${problem}`);
    if (config.scopes !== undefined && !config.scopes.includes('openid'))
      throw invalidMember(`${at}.scopes`, 'has no "openid": an OpenID Connect sign-in asks for it');
  } else {
    const source = metadataSource(config.idpMetadata);
    if (source.kind === 'url') {
      const problem = identityProviderUrlProblem(source.url);
      if (problem !== undefined) throw invalidMember(`${at}.idpMetadata`, `is "${source.url}": ${problem}`);
    } else if (source.kind === 'invalid') {
      throw invalidMember(`${at}.idpMetadata`, 'is neither an https URL, an absolute file path, nor metadata XML (<EntityDescriptor …>)');
    }
  }
}

/** True for a loopback host name or address: an identity provider there is on this machine (tests, a local IdP). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** Why a URL of an identity provider (issuer, metadata) cannot be used: not https, unless on a loopback address. Undefined when it can. */
export function identityProviderUrlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'not a URL';
  }
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return undefined;
  return 'an identity provider is reached over https (http only on a loopback address)';
}

/** Where a SAML provider's IdP metadata comes from: a URL, a file, the XML itself. */
export function metadataSource(
  idpMetadata: string,
): { kind: 'url'; url: string } | { kind: 'file'; path: string } | { kind: 'xml'; xml: string } | { kind: 'invalid' } {
  const text = idpMetadata.trim();
  if (text.startsWith('<')) return { kind: 'xml', xml: text };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return { kind: 'url', url: text };
  if (text.startsWith('/')) return { kind: 'file', path: text };
  return { kind: 'invalid' };
}

/**
 * A return path a browser may be sent to after signing in: a path of this platform (`/console/…`),
 * never another site (`//evil.example`, `/\\evil.example`, `https://…`). Undefined when it is not one.
 */
export function safeReturnPath(returnTo: string | undefined): string | undefined {
  if (returnTo === undefined) return DEFAULT_RETURN_PATH;
  if (!returnTo.startsWith('/') || returnTo.startsWith('//') || [...returnTo].some(isUnsafeInPath)) return undefined;
  // resolved against a dummy origin, a same-origin path stays on it
  const resolved = new URL(returnTo, 'http://nap.invalid');
  // dot segments can leave a path of two slashes (`/a/..//evil.example`), which a browser reads as another site
  if (resolved.origin !== 'http://nap.invalid' || resolved.pathname.startsWith('//')) return undefined;
  return `${resolved.pathname}${resolved.search}${resolved.hash}`;
}

/** Backslashes (browsers read them as slashes), white space and control characters: none belongs in a return path. */
function isUnsafeInPath(char: string): boolean {
  return char === '\\' || /\s/.test(char) || char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f;
}

/** Where a browser goes once signed in when it names no place. */
export const DEFAULT_RETURN_PATH = '/console/';

/** How long a browser sign-in may take between `GET /sso/login` and the callback, ms. */
export const BROWSER_SIGN_IN_TTL_MS = 10 * 60_000;

/** The values of a claim or attribute as group names: a string, or an array of strings (others left out). */
export function groupNamesOf(value: unknown): string[] {
  if (typeof value === 'string') return value === '' ? [] : [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string' && v !== '');
  return [];
}

/**
 * {@link SignInMethod.samePerson} of a method whose `externalId` names one person for good (an OIDC
 * `sub`: never changed, never given to another): an account bound to another is another person's.
 */
export function boundToSubject(boundTo: string | undefined, identity: ExternalIdentity): string | undefined {
  return boundTo === undefined || boundTo === identity.externalId
    ? undefined
    : 'belongs to another person of this provider (another subject)';
}

/** A member of claims by a dotted path (`realm_access.roles`); a member whose own name holds dots is found first. */
export function claimAt(claims: Record<string, unknown>, path: string): unknown {
  // own members only: a claim named constructor or toString is absent unless the provider sent it
  if (Object.hasOwn(claims, path)) return claims[path];
  let here: unknown = claims;
  for (const part of path.split('.')) {
    if (!isRecord(here)) return undefined;
    here = ownValue(here, part);
  }
  return here;
}

/** The LDAP URLs of a provider, in the order they are tried. */
export function ldapUrls(config: LdapProviderConfig): string[] {
  return config.url.split(/[\s,]+/).filter((url) => url !== '');
}

/** A RADIUS server's host and port (1812 when left out); undefined when it is not host:port. */
export function radiusServer(server: string): { host: string; port: number } | undefined {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s[\]]+))(?::(\d{1,5}))?$/.exec(server.trim());
  if (!match) return undefined;
  const port = match[3] === undefined ? 1812 : Number(match[3]);
  if (port < 1 || port > 65_535) return undefined;
  return { host: (match[1] ?? match[2]) as string, port };
}

/** The admin groups of a provider: its own `adminGroups` and the profile's `authenticationProps.admins` entries of its provenance. */
export function adminGroupsOf(provider: NamedProvider, authenticationProps: unknown): string[] {
  const auth = isRecord(authenticationProps) ? authenticationProps : {};
  const admins = Array.isArray(auth.admins) ? auth.admins : [];
  const fromAdmins = admins.flatMap((entry: unknown) =>
    isRecord(entry) && entry.provenance === provider.name && typeof entry.group === 'string' ? [entry.group] : [],
  );
  return [...new Set([...(provider.config.adminGroups ?? []), ...fromAdmins])];
}

/** Minutes between re-checks of a provider's sessions. */
export function recheckMinutesOf(config: ProviderConfig): number {
  return config.recheckMinutes ?? DEFAULT_RECHECK_MINUTES;
}

/**
 * The providers to add to a profile from the environment of a first start (`NAP_LDAP_*` as
 * `ldap`, `NAP_RADIUS_*` as `radius`, `NAP_OIDC_*` as `oidc`, `NAP_SAML_*` as `saml`): those of a name the profile does not have yet. Undefined
 * when there is nothing to add.
 */
export function seededAuthenticationProps(
  authenticationProps: Record<string, unknown> | undefined,
  fromEnvironment: Record<string, ProviderConfig | undefined>,
): Record<string, unknown> | undefined {
  const auth = authenticationProps ?? {};
  const providers = isRecord(auth.providers) ? { ...auth.providers } : {};
  let added = false;
  for (const [name, config] of Object.entries(fromEnvironment)) {
    if (config === undefined || name in providers) continue;
    providers[name] = config;
    added = true;
  }
  return added ? { ...auth, providers } : undefined;
}

// ---- groups and accounts of a sign-in ----

/**
 * Group names compare without case, as directories (Active Directory above all) do, and otherwise
 * exactly: a collation would also take full-width or circled letters and invisible characters
 * (soft hyphen, zero-width space) for the letters they look like, so a person free to name a group
 * at the identity provider (`ｎａｐ-ａｄｍｉｎｓ`) would get the admin role of `nap-admins`.
 */
export function sameGroupName(a: string, b: string): boolean {
  return a.normalize('NFC').toLowerCase() === b.normalize('NFC').toLowerCase();
}

/**
 * The NAP name of a new group for the directory group `externalName` of `provenance`: its own name,
 * or `<name> (<provenance>)` when a group of that name exists already (a local `admins`, say), so
 * that a directory group never merges into another group.
 */
export function newGroupName(externalName: string, provenance: string, nameTaken: boolean): string {
  return nameTaken ? `${externalName} (${provenance})` : externalName;
}

/**
 * The roles of a directory group once the admin groups are applied: the admin role is added to an
 * admin group, and taken back from a group that got it that way and is no longer one. A role an
 * administrator gave through the routes is never taken. Undefined when nothing changes.
 */
export function adminRoleChange(
  group: Pick<GroupRecord, 'roles' | 'adminFromConfig'>,
  isAdminGroup: boolean,
): { roles: Role[]; adminFromConfig: boolean } | undefined {
  const has = group.roles.includes('admin');
  if (isAdminGroup && !has) return { roles: [...group.roles, 'admin'], adminFromConfig: true };
  if (!isAdminGroup && has && group.adminFromConfig === true)
    return { roles: group.roles.filter((r) => r !== 'admin'), adminFromConfig: false };
  return undefined;
}

/**
 * The groups of an account after a sign-in through `provenance`: the groups of that provenance are
 * exactly those the method named now; the others (local groups an administrator added, groups of
 * another method) stay.
 */
export function groupsAfterSignIn(
  current: readonly string[],
  provenanceOf: ReadonlyMap<string, string | undefined>,
  provenance: string,
  now: readonly string[],
): string[] {
  const kept = current.filter((id) => provenanceOf.get(id) !== provenance);
  return [...new Set([...kept, ...now])];
}

/** True when an open session of a method that re-checks every `minutes` is due to be checked at `now` (epoch ms). */
export function recheckDue(checkedAt: number, now: number, minutes: number): boolean {
  return now - checkedAt >= minutes * 60_000;
}

/** 503 `AUTH_PROVIDER_UNAVAILABLE`, naming the provider and what failed. */
export function providerUnavailable(name: string, what: string, cause?: unknown): AppError {
  return new AppError('AUTH_PROVIDER_UNAVAILABLE', `Sign-in method "${name}" is unavailable: ${what}; local accounts still sign in`, {
    ...(cause !== undefined ? { cause } : {}),
  });
}
