import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { SignedXml } from 'xml-crypto';

/**
 * A SAML 2.0 identity provider made by the test, with the signing library of node-saml's own family
 * (xml-crypto): a key and certificate made with openssl, its metadata, an HTTP-Redirect sign-on
 * endpoint that reads NAP's AuthnRequest and answers a page whose form posts the signed Response to
 * NAP's assertion consumer (as every IdP's HTTP-POST binding does), and a way for a test to spoil
 * the next Response (audience, recipient, expiry, signature, a reused assertion id).
 */

/** A person the IdP signs in: the NameID and the attributes of the assertion. */
export interface SamlPerson {
  nameId: string;
  /** The NameID's Format; default `urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified`. */
  nameIdFormat?: string;
  attributes: Record<string, string[]>;
}

/** What the next Responses get wrong (or how they are signed). */
export interface SamlResponseOptions {
  /** What is signed: the assertion (default), the whole response, both, or nothing. */
  sign?: 'assertion' | 'response' | 'both' | 'none';
  audience?: string;
  recipient?: string;
  /** Seconds from now until NotOnOrAfter; negative: expired already. Default 300. */
  expiresIn?: number;
  /** Seconds from now until NotBefore of the conditions and the subject confirmation; positive: not valid yet. Default -60 (conditions only). */
  notBeforeIn?: number;
  /** The assertion's ID (default a fresh one): a reused id is a replay. */
  assertionId?: string;
  /** Changes the XML after it was signed (the signature then no longer holds). */
  afterSigning?: (xml: string) => string;
  issuer?: string;
}

/** An AuthnRequest NAP sent, as the IdP read it. */
export interface ReceivedRequest {
  id: string;
  acsUrl: string;
  relayState: string;
  issuer: string;
}

export interface SamlIdentityProviderHandle {
  entityId: string;
  /** The metadata XML NAP imports. */
  metadata: string;
  /** `http://127.0.0.1:<port>/metadata`: the same, served. */
  metadataUrl: string;
  /** Who the sign-on endpoint signs in next, and how its Responses go. */
  signInAs(person: SamlPerson, options?: SamlResponseOptions): void;
  /** The requests the sign-on endpoint received. */
  requests(): ReceivedRequest[];
  /** A Response to `request` for `person` (base64, as the form posts it), without the HTTP round. */
  response(request: ReceivedRequest, person: SamlPerson, options?: SamlResponseOptions): string;
  stop(): Promise<void>;
}

const SAMLP = 'urn:oasis:names:tc:SAML:2.0:protocol';
const SAML = 'urn:oasis:names:tc:SAML:2.0:assertion';

/** Starts the IdP on a free port of 127.0.0.1; NAP's SP entity id is the audience of its assertions unless told otherwise. */
export async function startSamlIdentityProvider(options: { spEntityId: string }): Promise<SamlIdentityProviderHandle> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'nap-saml-idp-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-sha256',
      '-days',
      '2',
      '-subj',
      '/CN=NAP test IdP',
      '-keyout',
      `${dir}/key.pem`,
      '-out',
      `${dir}/cert.pem`,
    ],
    { stdio: 'pipe' },
  );
  const privateKey = readFileSync(`${dir}/key.pem`, 'utf8');
  const certificate = readFileSync(`${dir}/cert.pem`, 'utf8');
  rmSync(dir, { recursive: true, force: true });
  const certBody = certificate.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');

  const received: ReceivedRequest[] = [];
  let next: { person: SamlPerson; options: SamlResponseOptions } | undefined;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://idp');
    if (url.pathname === '/metadata') {
      res.setHeader('content-type', 'application/samlmetadata+xml');
      res.end(metadata);
      return;
    }
    if (url.pathname !== '/sso' || req.method !== 'GET') {
      res.statusCode = 404;
      res.end();
      return;
    }
    const request = readRequest(url.searchParams.get('SAMLRequest') ?? '', url.searchParams.get('RelayState') ?? '');
    received.push(request);
    if (next === undefined) {
      res.statusCode = 403;
      res.end('nobody to sign in');
      return;
    }
    const samlResponse = response(request, next.person, next.options);
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(
      `<!doctype html><html><head><title>Test IdP</title></head><body><h1>Test IdP</h1>` +
        `<form method="post" action="${escapeXml(request.acsUrl)}">` +
        `<input type="hidden" name="SAMLResponse" value="${samlResponse}">` +
        `<input type="hidden" name="RelayState" value="${escapeXml(request.relayState)}">` +
        `<button type="submit">Continue to NAP</button></form></body></html>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const entityId = `${base}/metadata`;
  const metadata =
    `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${entityId}">` +
    `<md:IDPSSODescriptor protocolSupportEnumeration="${SAMLP}">` +
    `<md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${certBody}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>` +
    `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${base}/sso-post"/>` +
    `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${base}/sso"/>` +
    `</md:IDPSSODescriptor></md:EntityDescriptor>`;

  function response(request: ReceivedRequest, person: SamlPerson, opts: SamlResponseOptions = {}): string {
    const now = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    const ends = iso(now + (opts.expiresIn ?? 300) * 1000);
    const begins = iso(now + (opts.notBeforeIn ?? -60) * 1000);
    const subjectBegins = opts.notBeforeIn === undefined ? '' : ` NotBefore="${begins}"`;
    const issuer = opts.issuer ?? entityId;
    const recipient = opts.recipient ?? request.acsUrl;
    const assertionId = opts.assertionId ?? `_a${randomUUID()}`;
    const attributes = Object.entries(person.attributes)
      .map(
        ([name, values]) =>
          `<saml:Attribute Name="${escapeXml(name)}">${values.map((v) => `<saml:AttributeValue>${escapeXml(v)}</saml:AttributeValue>`).join('')}</saml:Attribute>`,
      )
      .join('');
    const assertion =
      `<saml:Assertion xmlns:saml="${SAML}" ID="${assertionId}" Version="2.0" IssueInstant="${iso(now)}">` +
      `<saml:Issuer>${escapeXml(issuer)}</saml:Issuer>` +
      `<saml:Subject><saml:NameID Format="${escapeXml(person.nameIdFormat ?? 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified')}">${escapeXml(person.nameId)}</saml:NameID>` +
      `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">` +
      `<saml:SubjectConfirmationData InResponseTo="${request.id}"${subjectBegins} NotOnOrAfter="${ends}" Recipient="${escapeXml(recipient)}"/>` +
      `</saml:SubjectConfirmation></saml:Subject>` +
      `<saml:Conditions NotBefore="${begins}" NotOnOrAfter="${ends}">` +
      `<saml:AudienceRestriction><saml:Audience>${escapeXml(opts.audience ?? options.spEntityId)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
      `<saml:AuthnStatement AuthnInstant="${iso(now)}" SessionIndex="_s${randomUUID()}"><saml:AuthnContext>` +
      `<saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
      `<saml:AttributeStatement>${attributes}</saml:AttributeStatement>` +
      `</saml:Assertion>`;
    let xml =
      `<samlp:Response xmlns:samlp="${SAMLP}" xmlns:saml="${SAML}" ID="_r${randomUUID()}" Version="2.0" IssueInstant="${iso(now)}" ` +
      `Destination="${escapeXml(recipient)}" InResponseTo="${request.id}">` +
      `<saml:Issuer>${escapeXml(issuer)}</saml:Issuer>` +
      `<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
      assertion +
      `</samlp:Response>`;
    const sign = opts.sign ?? 'assertion';
    if (sign === 'assertion' || sign === 'both') xml = signed(xml, 'Assertion', privateKey, certificate);
    if (sign === 'response' || sign === 'both') xml = signed(xml, 'Response', privateKey, certificate);
    if (opts.afterSigning) xml = opts.afterSigning(xml);
    return Buffer.from(xml, 'utf8').toString('base64');
  }

  return {
    entityId,
    metadata,
    metadataUrl: `${base}/metadata`,
    signInAs(person, opts = {}) {
      next = { person, options: opts };
    },
    requests: () => [...received],
    response,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An enveloped RSA-SHA256 signature of the element `local` (Assertion or Response), placed after its Issuer as the schema wants it. */
function signed(xml: string, local: 'Assertion' | 'Response', privateKey: string, publicCert: string): string {
  const signature = new SignedXml({
    privateKey,
    publicCert,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  });
  const element = `//*[local-name(.)='${local}']`;
  signature.addReference({
    xpath: element,
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
  });
  signature.computeSignature(xml, { location: { reference: `${element}/*[local-name(.)='Issuer']`, action: 'after' } });
  return signature.getSignedXml();
}

/** The AuthnRequest of the HTTP-Redirect binding (deflated, base64), read as the IdP reads it. */
function readRequest(samlRequest: string, relayState: string): ReceivedRequest {
  const xml = inflateRawSync(Buffer.from(samlRequest, 'base64')).toString('utf8');
  const attribute = (name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(xml)?.[1] ?? '';
  const issuer = /<(?:saml:)?Issuer[^>]*>([^<]*)</.exec(xml)?.[1] ?? '';
  return { id: attribute('ID'), acsUrl: attribute('AssertionConsumerServiceURL'), relayState, issuer };
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
