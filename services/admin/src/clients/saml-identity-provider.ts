import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type * as NodeSaml from '@node-saml/node-saml';
import type { CacheProvider, Profile, SAML } from '@node-saml/node-saml';
import type * as Xml2js from 'xml2js';
import { AppError, isAppError } from '@nap/contracts';
import type { SamlProviderConfig } from '@nap/contracts';
import type { Logger } from '@nap/telemetry';
import { onFirstUse } from '@nap/util';
import {
  BROWSER_SIGN_IN_TTL_MS,
  groupNamesOf,
  metadataSource,
  providerUnavailable,
  recheckMinutesOf,
  serverTimeoutMs,
} from '../domain/sign-in';
import type { BrowserFinishContext, BrowserMethod, BrowserStart, ExternalIdentity } from '../domain/sign-in';
import { isUnreachable } from './unreachable';

// SAML and its XML parsing load with the first SAML sign-in or metadata read (onFirstUse), not at every start
// eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
const nodeSaml = onFirstUse(() => require('@node-saml/node-saml') as typeof NodeSaml);
// eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
const xml2js = onFirstUse(() => require('xml2js') as typeof Xml2js);

/** What NAP takes from the identity provider's metadata. */
interface IdpMetadata {
  entityId: string;
  /** Its SingleSignOnService of the HTTP-Redirect binding. */
  ssoUrl: string;
  /** Its signing certificates (base64 DER, as metadata holds them). */
  certs: string[];
  loadedAt: number;
}

/** How long fetched metadata is kept before it is read again (a rolled-over signing certificate is then found), ms. */
const METADATA_REFRESH_MS = 60 * 60_000;
/** Clock difference allowed with the identity provider on NotBefore and NotOnOrAfter, ms. */
const CLOCK_SKEW_MS = 60_000;
const REDIRECT_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';

/** Attributes of the person's names and address as Entra ID, AD FS, Okta and the LDAP-minded IdPs send them. */
const NAME_ATTRIBUTES = {
  firstname: ['http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname', 'givenName', 'firstName', 'urn:oid:2.5.4.42'],
  lastname: ['http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname', 'sn', 'lastName', 'urn:oid:2.5.4.4'],
  email: ['http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress', 'email', 'mail', 'urn:oid:0.9.2342.19200300.100.1.3'],
} as const;

/**
 * A SAML 2.0 identity provider (Entra ID, Okta, PingID, AD FS), NAP its service provider, through
 * @node-saml/node-saml. The IdP's metadata (URL, file or XML) gives its entity id, its sign-on URL
 * and its signing certificates. A sign-in sends an AuthnRequest by the HTTP-Redirect binding with
 * the state as RelayState; the Response comes back by HTTP-POST to `<NAP_PUBLIC_URL>/sso/saml/acs`,
 * where node-saml checks the signature (of the response or of the assertion, at least one always),
 * the audience, NotBefore/NotOnOrAfter and InResponseTo (the request id this sign-in kept), and this
 * class the issuer, the recipient and destination, and that the assertion was never seen before
 * (kept in the admin store until it expires, so a replay to another replica is refused too).
 *
 * No re-check, as for OIDC: a session lasts `recheckMinutes`, then the person signs in again.
 */
export class SamlIdentityProvider implements BrowserMethod {
  readonly kind = 'browser' as const;
  readonly type = 'saml';
  readonly label: string;
  readonly recheckMinutes: number;
  private readonly acsUrl: string;
  private readonly spEntityId: string;
  private readonly timeoutMs: number;
  private metadata: { loading: Promise<IdpMetadata>; last?: IdpMetadata } | undefined;

  constructor(
    readonly name: string,
    private readonly config: SamlProviderConfig,
    readonly adminGroups: string[],
    publicUrl: string,
    private readonly log: Logger,
  ) {
    this.label = config.label ?? name;
    this.recheckMinutes = recheckMinutesOf(config);
    this.acsUrl = `${publicUrl}/sso/saml/acs`;
    this.spEntityId = config.spEntityId ?? `${publicUrl}/sso/saml/metadata`;
    this.timeoutMs = serverTimeoutMs(config);
  }

  serviceProviderMetadata(): string {
    // asks the IdP to sign assertions; a signed response alone is still accepted unless wantAssertionsSigned
    return nodeSaml().generateServiceProviderMetadata({
      issuer: this.spEntityId,
      callbackUrl: this.acsUrl,
      identifierFormat: null,
      wantAssertionsSigned: true,
    });
  }

  async start(): Promise<BrowserStart> {
    const idp = await this.idp();
    const state = randomBytes(32).toString('base64url');
    const kept: { requestId?: string; issuedAt?: string } = {};
    const saml = this.saml(idp, {
      saveAsync: async (key, value) => {
        kept.requestId = key;
        kept.issuedAt = value;
        return { value, createdAt: Date.now() };
      },
      getAsync: async () => null,
      removeAsync: async () => null,
    });
    const redirectUrl = await saml.getAuthorizeUrlAsync(state, undefined, {});
    if (kept.requestId === undefined || kept.issuedAt === undefined) throw new Error('node-saml kept no request id');
    return { redirectUrl, state, pending: { requestId: kept.requestId, issuedAt: kept.issuedAt } };
  }

  async finish(
    callback: { query: Record<string, string>; form: Record<string, string> },
    pending: Record<string, string>,
    context: BrowserFinishContext,
  ): Promise<ExternalIdentity> {
    const idp = await this.idp();
    // InResponseTo must be the request this sign-in sent, and nothing else
    const saml = this.saml(idp, {
      saveAsync: async () => null,
      getAsync: async (key) => (key === pending.requestId ? (pending.issuedAt ?? null) : null),
      removeAsync: async () => null,
    });
    let profile: Profile | null;
    try {
      ({ profile } = await saml.validatePostResponseAsync({ SAMLResponse: callback.form.SAMLResponse ?? '' }));
    } catch (err) {
      throw this.refused(err instanceof Error ? err.message : String(err), err);
    }
    if (profile === null) throw this.refused('the response holds no assertion');
    if (profile.issuer !== idp.entityId)
      throw this.refused(`the assertion's issuer is "${profile.issuer}", not the identity provider of the metadata ("${idp.entityId}")`);
    const assertion = (profile.getAssertion?.() as { Assertion?: XmlNode } | undefined)?.Assertion;
    if (assertion === undefined) throw this.refused('the assertion cannot be read');
    await this.checkRecipient(assertion, profile);
    await this.checkFirstUse(assertion, context);
    return this.identityOf(profile, idp.entityId);
  }

  /** See {@link samlBindingRefusal}. */
  samePerson(boundTo: string | undefined, identity: ExternalIdentity): string | undefined {
    return samlBindingRefusal(boundTo, identity.externalId);
  }

  async close(): Promise<void> {
    this.metadata = undefined;
  }

  private saml(idp: IdpMetadata, cacheProvider: CacheProvider): SAML {
    return new (nodeSaml().SAML)({
      callbackUrl: this.acsUrl,
      entryPoint: idp.ssoUrl,
      issuer: this.spEntityId,
      audience: this.spEntityId,
      idpCert: idp.certs,
      idpIssuer: idp.entityId,
      wantAssertionsSigned: this.config.wantAssertionsSigned ?? false,
      wantAuthnResponseSigned: this.config.wantResponseSigned ?? false,
      validateInResponseTo: nodeSaml().ValidateInResponseTo.always,
      requestIdExpirationPeriodMs: BROWSER_SIGN_IN_TTL_MS,
      cacheProvider,
      acceptedClockSkewMs: CLOCK_SKEW_MS,
      identifierFormat: null,
      // Entra ID and Okta refuse a password context for people who sign in otherwise (MFA, passkeys)
      disableRequestedAuthnContext: true,
      signatureAlgorithm: 'sha256',
    });
  }

  /** The Recipient of the subject confirmation, and the Destination of the response when it names one, must be NAP's assertion consumer. */
  private async checkRecipient(assertion: XmlNode, profile: Profile): Promise<void> {
    const confirmations = (assertion.Subject?.[0]?.SubjectConfirmation ?? []).flatMap((c) => c.SubjectConfirmationData ?? []);
    const recipients = confirmations.map((data) => data.$?.Recipient).filter((r): r is string => typeof r === 'string');
    if (!recipients.includes(this.acsUrl))
      throw this.refused(
        `the assertion's Recipient is ${recipients.length ? `"${recipients.join('", "')}"` : 'missing'}, not "${this.acsUrl}"`,
      );
    const destination = await destinationOf(profile.getSamlResponseXml?.());
    if (destination !== undefined && destination !== this.acsUrl)
      throw this.refused(`the response's Destination is "${destination}", not "${this.acsUrl}"`);
  }

  /** An assertion is taken once: its id is remembered until it expires. */
  private async checkFirstUse(assertion: XmlNode, context: BrowserFinishContext): Promise<void> {
    const id = assertion.$?.ID;
    if (typeof id !== 'string' || id === '') throw this.refused('the assertion has no ID');
    const ends = [
      assertion.Conditions?.[0]?.$?.NotOnOrAfter,
      ...(assertion.Subject?.[0]?.SubjectConfirmation ?? []).flatMap((c) => c.SubjectConfirmationData ?? []).map((d) => d.$?.NotOnOrAfter),
    ]
      .map((text) => (typeof text === 'string' ? Date.parse(text) : Number.NaN))
      .filter((ms) => Number.isFinite(ms));
    // an assertion without an end is kept as long as a sign-in under way: beyond that InResponseTo refuses it anyway
    const expiresAt = Math.max(Date.now() + BROWSER_SIGN_IN_TTL_MS, ...ends) + CLOCK_SKEW_MS;
    if (!(await context.firstUse(id, expiresAt))) throw this.refused(`the assertion "${id}" was used before (a replay)`);
  }

  /**
   * The person: the username (the NameID, or the `usernameAttribute`), and what the account is bound
   * to (`externalId`): the NameID when its format is persistent, otherwise the issuer and the
   * username as the IdP asserted it (see {@link samlBindingRefusal}).
   */
  private identityOf(profile: Profile, issuer: string): ExternalIdentity {
    const attributes = (profile.attributes ?? {}) as Record<string, unknown>;
    const usernameAttribute = this.config.usernameAttribute;
    const username = usernameAttribute === undefined ? profile.nameID : attributes[usernameAttribute];
    if (typeof username !== 'string' || username === '')
      throw this.refused(
        usernameAttribute === undefined ? 'the assertion has no NameID' : `the assertion has no "${usernameAttribute}" attribute`,
      );
    const binding: SamlBinding =
      profile.nameIDFormat === PERSISTENT_NAME_ID && typeof profile.nameID === 'string' && profile.nameID !== ''
        ? { kind: 'persistent', issuer, nameId: profile.nameID }
        : { kind: 'attribute', issuer, attribute: usernameAttribute ?? 'NameID', value: username };
    const identity: ExternalIdentity = {
      username,
      externalId: bindingText(binding),
      groups: groupNamesOf(attributes[this.config.groupsAttribute ?? 'groups']),
    };
    for (const [member, names] of Object.entries(NAME_ATTRIBUTES)) {
      const value = names.map((n) => attributes[n]).find((v): v is string => typeof v === 'string' && v !== '');
      if (value !== undefined) identity[member as keyof typeof NAME_ATTRIBUTES] = value;
    }
    return identity;
  }

  private refused(what: string, cause?: unknown): AppError {
    this.log.info({ reason: what }, 'SAML sign-in refused');
    return new AppError('UNAUTHENTICATED', `Sign-in with "${this.name}" refused: ${what}`, cause === undefined ? {} : { cause });
  }

  /** The IdP's metadata, read again after an hour; when it cannot be read then, the last one read goes on. 503 when none can be had. */
  private idp(): Promise<IdpMetadata> {
    const held = this.metadata;
    if (held !== undefined && (held.last === undefined || Date.now() - held.last.loadedAt < METADATA_REFRESH_MS)) return held.loading;
    const loading = this.loadMetadata().then(
      (metadata) => {
        if (this.metadata?.loading === loading) this.metadata = { loading, last: metadata };
        return metadata;
      },
      (err: unknown) => {
        if (this.metadata?.loading !== loading) throw err;
        if (held?.last !== undefined) {
          this.log.warn({ err: (err as Error).message }, 'IdP metadata could not be read again; the last one read goes on');
          this.metadata = { loading: Promise.resolve(held.last), last: { ...held.last, loadedAt: Date.now() } };
          return held.last;
        }
        this.metadata = undefined;
        throw err;
      },
    );
    this.metadata = { loading, ...(held?.last !== undefined ? { last: held.last } : {}) };
    return loading;
  }

  private async loadMetadata(): Promise<IdpMetadata> {
    const source = metadataSource(this.config.idpMetadata);
    let xml: string;
    let where: string;
    try {
      if (source.kind === 'url') {
        where = source.url;
        const res = await fetch(source.url, { signal: AbortSignal.timeout(this.timeoutMs), redirect: 'error' });
        if (!res.ok) throw providerUnavailable(this.name, `its metadata at ${source.url} answered ${res.status}`);
        xml = await res.text();
      } else if (source.kind === 'file') {
        where = source.path;
        xml = await readFile(source.path, 'utf8');
      } else if (source.kind === 'xml') {
        where = 'idpMetadata';
        xml = source.xml;
      } else {
        throw providerUnavailable(this.name, 'idpMetadata is neither a URL, a file nor XML');
      }
    } catch (err) {
      if (isAppError(err)) throw err;
      const why = isUnreachable(err) ? 'no answer' : (err as Error).message;
      throw providerUnavailable(this.name, `its metadata cannot be read (${why})`, err);
    }
    const metadata = await parseIdpMetadata(xml);
    if (typeof metadata === 'string') throw providerUnavailable(this.name, `its metadata (${where}) ${metadata}`);
    this.log.info({ entityId: metadata.entityId, ssoUrl: metadata.ssoUrl, certificates: metadata.certs.length }, 'SAML IdP metadata read');
    return { ...metadata, loadedAt: Date.now() };
  }
}

const PERSISTENT_NAME_ID = 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent';

/**
 * What an account of a SAML provider is bound to: a persistent NameID of an issuer (one person for
 * good, as an OIDC `sub`), or, when the IdP sends transient (or unspecified, email, …) NameIDs that
 * name nobody for good, the issuer and the username attribute's value it asserted.
 */
type SamlBinding =
  { kind: 'persistent'; issuer: string; nameId: string } | { kind: 'attribute'; issuer: string; attribute: string; value: string };

/** A binding as the account keeps it (`externalId`): a JSON array, never a bare NameID. */
function bindingText(binding: SamlBinding): string {
  return JSON.stringify(
    binding.kind === 'persistent'
      ? [binding.kind, binding.issuer, binding.nameId]
      : [binding.kind, binding.issuer, binding.attribute, binding.value],
  );
}

/** The binding an account keeps; undefined for what a version before bindings kept (the last NameID seen). */
function bindingOf(text: string | undefined): SamlBinding | undefined {
  let parts: unknown;
  try {
    parts = JSON.parse(text ?? '');
  } catch {
    return undefined;
  }
  if (!Array.isArray(parts) || !parts.every((p) => typeof p === 'string')) return undefined;
  const [kind, issuer, a, b] = parts as string[];
  if (kind === 'persistent' && issuer !== undefined && a !== undefined && parts.length === 3) return { kind, issuer, nameId: a };
  if (kind === 'attribute' && issuer !== undefined && a !== undefined && b !== undefined && parts.length === 4)
    return { kind, issuer, attribute: a, value: b };
  return undefined;
}

/**
 * Why the person a SAML sign-in asserts (`externalId`, from the assertion) is not the one the account
 * of that username is bound to (`boundTo`); undefined when it is, and the account is then bound to
 * the sign-in's binding. An account bound to a persistent NameID takes only that NameID of that
 * issuer: another person at the same IdP who presents the same username attribute is refused, and
 * so is a sign-in with a transient NameID. An account bound by attribute (the IdP sends transient
 * NameIDs) takes that issuer only, and is bound to a persistent NameID once one comes. An account of
 * a version before bindings kept the last NameID seen: a persistent NameID must be that one; a
 * transient one could not be checked then either, and binds the account to the issuer.
 */
export function samlBindingRefusal(boundTo: string | undefined, externalId: string | undefined): string | undefined {
  const now = bindingOf(externalId);
  if (boundTo === undefined || now === undefined || boundTo === externalId) return undefined;
  const bound = bindingOf(boundTo);
  if (bound === undefined) {
    if (now.kind === 'attribute' || now.nameId === boundTo) return undefined;
    return 'is bound to another person of this identity provider (another persistent NameID)';
  }
  if (bound.issuer !== now.issuer) return `is bound to the identity provider "${bound.issuer}", not to "${now.issuer}"`;
  if (bound.kind === 'attribute') return undefined;
  return now.kind === 'persistent'
    ? 'is bound to another person of this identity provider (another persistent NameID)'
    : 'is bound to a persistent NameID, and this assertion carries a NameID of another format';
}

/** An element as node-saml's xml2js parsing answers it: attributes under `$`, children as arrays. */
interface XmlNode {
  $?: Record<string, string | undefined>;
  Subject?: XmlNode[];
  SubjectConfirmation?: XmlNode[];
  SubjectConfirmationData?: XmlNode[];
  Conditions?: XmlNode[];
}

/** An element as xml2js answers it (namespace prefixes stripped): attributes under `$`, text under `_`, children as arrays. */
interface XmlElement {
  $?: Record<string, string>;
  _?: string;
  [child: string]: unknown;
}

function childrenOf(element: XmlElement | undefined, name: string): XmlElement[] {
  const children = element?.[name];
  return Array.isArray(children) ? (children as XmlElement[]) : [];
}

/** Every element named `name` at any depth under `element`. */
function descendantsOf(element: XmlElement, name: string): XmlElement[] {
  const found: XmlElement[] = [];
  for (const [key, value] of Object.entries(element)) {
    if (key === '$' || key === '_' || !Array.isArray(value)) continue;
    for (const child of value as unknown[]) {
      if (typeof child === 'string') {
        if (key === name) found.push({ _: child });
        continue;
      }
      if (typeof child !== 'object' || child === null) continue;
      if (key === name) found.push(child as XmlElement);
      found.push(...descendantsOf(child as XmlElement, name));
    }
  }
  return found;
}

/** The entity id, HTTP-Redirect sign-on URL and signing certificates of an IdP's metadata, or what is wrong with it. */
export async function parseIdpMetadata(xml: string): Promise<Omit<IdpMetadata, 'loadedAt'> | string> {
  let root: Record<string, XmlElement>;
  try {
    root = (await xml2js().parseStringPromise(xml, { tagNameProcessors: [xml2js().processors.stripPrefix], explicitRoot: true })) as Record<
      string,
      XmlElement
    >;
  } catch (err) {
    return `is not XML: ${(err as Error).message.split('\n')[0]}`;
  }
  const top = root.EntityDescriptor ?? root.EntitiesDescriptor;
  if (top === undefined) return 'has no EntityDescriptor';
  const descriptors = root.EntityDescriptor !== undefined ? [top] : descendantsOf(top, 'EntityDescriptor');
  const descriptor = descriptors.find((d) => childrenOf(d, 'IDPSSODescriptor').length > 0);
  if (descriptor === undefined) return 'has no EntityDescriptor with an IDPSSODescriptor';
  const entityId = descriptor.$?.entityID;
  if (!entityId) return 'has no entityID';
  const idp = childrenOf(descriptor, 'IDPSSODescriptor')[0];
  const ssoUrl = childrenOf(idp, 'SingleSignOnService').find((s) => s.$?.Binding === REDIRECT_BINDING)?.$?.Location;
  if (!ssoUrl) return `has no SingleSignOnService of the HTTP-Redirect binding (${REDIRECT_BINDING})`;
  const certs = childrenOf(idp, 'KeyDescriptor')
    .filter((key) => key.$?.use === undefined || key.$.use === 'signing')
    .flatMap((key) => descendantsOf(key, 'X509Certificate'))
    .map((cert) => (cert._ ?? '').replace(/\s+/g, ''))
    .filter((cert) => cert !== '');
  if (certs.length === 0) return 'has no signing certificate (KeyDescriptor use="signing" with an X509Certificate)';
  return { entityId, ssoUrl, certs: certs.map(pemOf) };
}

/** A base64 DER certificate as PEM, as node-saml takes it. */
function pemOf(base64: string): string {
  return `-----BEGIN CERTIFICATE-----\n${base64.match(/.{1,64}/g)?.join('\n') ?? base64}\n-----END CERTIFICATE-----`;
}

/** The Destination of a SAML Response, when it names one. */
async function destinationOf(responseXml: string | undefined): Promise<string | undefined> {
  if (responseXml === undefined) return undefined;
  const root = (await xml2js().parseStringPromise(responseXml, { tagNameProcessors: [xml2js().processors.stripPrefix] })) as Record<
    string,
    XmlElement
  >;
  const destination = root.Response?.$?.Destination;
  return destination ? destination : undefined;
}
