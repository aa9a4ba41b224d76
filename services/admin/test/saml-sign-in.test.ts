import { startTestPlatform } from '@nap/standalone';
import type { TestPlatform } from '@nap/standalone';
import { eventually, freePort } from '@nap/testing';
import { BrowserSession } from '../../../test/support/browser-session';
import type { BrowserAnswer } from '../../../test/support/browser-session';
import { startSamlIdentityProvider } from '../../../test/support/saml-identity-provider';
import type { SamlIdentityProviderHandle, SamlPerson, SamlResponseOptions } from '../../../test/support/saml-identity-provider';
import { parseIdpMetadata, samlBindingRefusal } from '../src/clients/saml-identity-provider';
import { signInAdministration } from './support/sign-in-administration';
import type { Account } from './support/sign-in-administration';

/**
 * Sign-in through a SAML 2.0 identity provider made by the test (xml-crypto signing with a key and
 * certificate made by openssl; its metadata served over HTTP and imported by NAP), through the
 * browser over plain HTTP: NAP's /sso/login, the AuthnRequest at the IdP, the auto-post form back
 * to NAP's /sso/saml/acs, the token cookie. A signed assertion and a signed response accepted;
 * unsigned, tampered, replayed, reused, wrong audience, recipient, issuer, InResponseTo and expired
 * assertions refused; a response the browser did not ask for refused; the audit trail.
 */

const ALICE: SamlPerson = {
  nameId: 'alice',
  attributes: { groups: ['netops', 'nap-admins'], email: ['alice@nap.test'], givenName: ['Alice'] },
};
const BOB: SamlPerson = { nameId: 'bob', attributes: { groups: ['netops'] } };

let platform: TestPlatform;
let idp: SamlIdentityProviderHandle;
let napUrl: string;
let admin: string;

const { setProviders, accountOf, groupProvenances } = signInAdministration(() => ({ platform, token: admin }));

function htmlValue(html: string, pattern: RegExp): string {
  const found = pattern.exec(html)?.[1];
  if (found === undefined) throw new Error(`not in the page: ${pattern}\n${html}`);
  return found
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** NAP's /sso/login to the IdP's page, whose form the browser posts to NAP's assertion consumer (its redirect to the console not followed). */
async function signIn(browser: BrowserSession, person: SamlPerson, options: SamlResponseOptions = {}): Promise<BrowserAnswer> {
  idp.signInAs(person, options);
  const page = await browser.get(`${napUrl}/sso/login?provider=corp-saml&returnTo=/console/jobs`);
  expect(page.status).toBe(200);
  return postForm(browser, page);
}

async function postForm(browser: BrowserSession, page: BrowserAnswer, change: Partial<Record<'SAMLResponse' | 'RelayState', string>> = {}) {
  const action = htmlValue(page.text, /action="([^"]+)"/);
  const form = {
    SAMLResponse: htmlValue(page.text, /name="SAMLResponse" value="([^"]+)"/),
    RelayState: htmlValue(page.text, /name="RelayState" value="([^"]*)"/),
    ...change,
  };
  return browser.postForm(action, form, (next) => next.pathname.startsWith('/console'));
}

function messageOf(answer: BrowserAnswer): string {
  return (JSON.parse(answer.text) as { message: string }).message;
}

beforeAll(async () => {
  const port = await freePort();
  napUrl = `http://127.0.0.1:${port}`;
  idp = await startSamlIdentityProvider({ spEntityId: `${napUrl}/sso/saml/metadata` });
  platform = await startTestPlatform({ config: { port, publicUrl: napUrl } });
  admin = await platform.login();
  await setProviders({
    'corp-saml': { type: 'saml', label: 'Corp SAML', idpMetadata: idp.metadataUrl, adminGroups: ['nap-admins'], timeoutMs: 3_000 },
  });
}, 60_000);

afterAll(async () => {
  await platform?.stop();
  await idp?.stop();
});

describe('SAML 2.0 sign-in through the browser', () => {
  test('the method is listed, and NAP serves its service provider metadata', async () => {
    const methods = await platform.http('GET', '/sso/methods');
    expect(methods.body).toEqual({ results: [{ name: 'corp-saml', label: 'Corp SAML', type: 'saml' }] });
    const res = await platform.http('GET', '/sso/saml/metadata');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/samlmetadata+xml');
    const xml = res.body as string;
    expect(xml).toContain(`entityID="${napUrl}/sso/saml/metadata"`);
    expect(xml).toContain(`Location="${napUrl}/sso/saml/acs"`);
  });

  test('a signed assertion signs the person in: token cookie, redirect to the console, groups from the attribute with provenance', async () => {
    const browser = new BrowserSession();
    const answer = await signIn(browser, ALICE);
    expect(answer.status).toBe(303);
    expect(answer.hops.at(-1)?.location).toBe('/console/jobs');
    const request = idp.requests().at(-1);
    expect(request?.acsUrl).toBe(`${napUrl}/sso/saml/acs`);
    expect(request?.issuer).toBe(`${napUrl}/sso/saml/metadata`);

    const token = browser.cookie(napUrl, 'token');
    const me = await platform.http('GET', '/whoami', { headers: { cookie: `token=${token}` } });
    expect(me.status).toBe(200);
    expect((me.body as Account).username).toBe('alice');
    expect((me.body as Account).roles).toContain('admin');
    const alice = await accountOf('alice');
    expect(alice.provenance).toBe('corp-saml');
    expect(alice.email).toBe('alice@nap.test');
    expect(alice.firstname).toBe('Alice');
    expect(await groupProvenances(alice.groups)).toEqual(['nap-admins:corp-saml', 'netops:corp-saml']);
  });

  test('a signed response (assertion unsigned) is accepted too', async () => {
    const answer = await signIn(new BrowserSession(), BOB, { sign: 'response' });
    expect(answer.status).toBe(303);
    expect(await groupProvenances((await accountOf('bob')).groups)).toEqual(['netops:corp-saml']);
  });

  test('an unsigned response is refused', async () => {
    const answer = await signIn(new BrowserSession(), ALICE, { sign: 'none' });
    expect(answer.status).toBe(401);
    expect(messageOf(answer)).toMatch(/signature/i);
  });

  test('a response changed after signing (a group added) is refused', async () => {
    const answer = await signIn(new BrowserSession(), BOB, {
      afterSigning: (xml) =>
        xml.replace('<saml:AttributeValue>netops</saml:AttributeValue>', '<saml:AttributeValue>nap-admins</saml:AttributeValue>'),
    });
    expect(answer.status).toBe(401);
    expect(messageOf(answer)).toMatch(/signature/i);
    expect((await accountOf('bob')).roles).not.toContain('admin');
  });

  test('a replayed post is refused, and so is an assertion id used before in a new sign-in', async () => {
    const browser = new BrowserSession();
    idp.signInAs(BOB, { assertionId: '_reused-assertion' });
    const page = await browser.get(`${napUrl}/sso/login?provider=corp-saml`);
    expect((await postForm(browser, page)).status).toBe(303);
    // the same form again, with the binding cookie put back
    browser.setCookie(napUrl, 'nap_sso', htmlValue(page.text, /name="RelayState" value="([^"]*)"/), '/sso');
    const again = await postForm(browser, page);
    expect(again.status).toBe(401);
    expect(messageOf(again)).toMatch(/finished already/);
    // a fresh, valid sign-in whose assertion carries an id seen before
    const reused = await signIn(new BrowserSession(), BOB, { assertionId: '_reused-assertion' });
    expect(reused.status).toBe(401);
    expect(messageOf(reused)).toMatch(/used before/);
  });

  test('a response to another request (InResponseTo) is refused', async () => {
    const browser = new BrowserSession();
    idp.signInAs(BOB);
    const first = await browser.get(`${napUrl}/sso/login?provider=corp-saml`);
    const firstRequest = idp.requests().at(-1);
    const second = await browser.get(`${napUrl}/sso/login?provider=corp-saml`);
    if (firstRequest === undefined) throw new Error('no request');
    // the answer to the first request, brought back under the second sign-in (the one this browser holds)
    const answer = await postForm(browser, second, { SAMLResponse: idp.response(firstRequest, BOB) });
    expect(answer.status).toBe(401);
    expect(messageOf(answer)).toMatch(/InResponseTo/);
    expect(first.status).toBe(200);
  });

  test('the wrong audience, recipient or issuer, and an expired assertion, are refused naming the check', async () => {
    const cases: [SamlResponseOptions, RegExp][] = [
      [{ audience: 'https://another-sp.example/' }, /audience/i],
      [{ recipient: 'https://another-sp.example/acs' }, /Recipient/],
      [{ issuer: 'https://another-idp.example/' }, /issuer/i],
      [{ expiresIn: -600 }, /expired|subject confirmation/i],
    ];
    for (const [options, message] of cases) {
      const answer = await signIn(new BrowserSession(), BOB, options);
      expect({ options, status: answer.status }).toEqual({ options, status: 401 });
      expect(messageOf(answer)).toMatch(message);
    }
  });

  test('an assertion not valid yet is refused; NotBefore and NotOnOrAfter within the clock skew (60 s) are accepted', async () => {
    const early = await signIn(new BrowserSession(), BOB, { notBeforeIn: 600 });
    expect(early.status).toBe(401);
    expect(messageOf(early)).toMatch(/NotBefore|subject confirmation/i);
    expect((await signIn(new BrowserSession(), BOB, { notBeforeIn: 20 })).status).toBe(303);
    expect((await signIn(new BrowserSession(), BOB, { expiresIn: -20 })).status).toBe(303);
  });

  test('signature wrapping: an unsigned assertion beside, around or in place of the signed one signs nobody in', async () => {
    const signatureOf = (xml: string) => /<Signature [\s\S]*?<\/Signature>/.exec(xml)?.[0] ?? '';
    const signedAssertionOf = (xml: string) => /<saml:Assertion [\s\S]*<\/saml:Assertion>/.exec(xml)?.[0] ?? '';
    // the same assertion made out for alice, an admin, without its signature
    const forged = (signed: string, id: string) =>
      signed
        .replace(signatureOf(signed), '')
        .replace(/ ID="[^"]+"/, ` ID="${id}"`)
        .replace('>bob</saml:NameID>', '>alice</saml:NameID>')
        .replace('<saml:AttributeValue>netops</saml:AttributeValue>', '<saml:AttributeValue>nap-admins</saml:AttributeValue>');
    const wraps: Record<string, (xml: string) => string> = {
      'a forged assertion before the signed one': (xml) => {
        const signed = signedAssertionOf(xml);
        return xml.replace(signed, forged(signed, '_forged') + signed);
      },
      'the signed assertion inside the Advice of a forged one': (xml) => {
        const signed = signedAssertionOf(xml);
        const outer = forged(signed, '_forged');
        return xml.replace(signed, outer.replace(/<\/saml:Assertion>$/, `<saml:Advice>${signed}</saml:Advice></saml:Assertion>`));
      },
      "a forged assertion with the signed one's signature, the signed one in the response's Extensions": (xml) => {
        const signed = signedAssertionOf(xml);
        const outer = forged(signed, '_forged').replace('</saml:Issuer>', `</saml:Issuer>${signatureOf(signed)}`);
        return xml.replace('</saml:Issuer>', `</saml:Issuer><samlp:Extensions>${signed}</samlp:Extensions>`).replace(signed, outer);
      },
      "a forged assertion with the signed one's ID and signature, the signed one in the response's Extensions": (xml) => {
        const signed = signedAssertionOf(xml);
        const id = / ID="([^"]+)"/.exec(signed)?.[1] ?? '';
        const outer = forged(signed, id).replace('</saml:Issuer>', `</saml:Issuer>${signatureOf(signed)}`);
        return xml.replace('</saml:Issuer>', `</saml:Issuer><samlp:Extensions>${signed}</samlp:Extensions>`).replace(signed, outer);
      },
    };
    for (const [wrap, afterSigning] of Object.entries(wraps)) {
      const answer = await signIn(new BrowserSession(), BOB, { afterSigning });
      expect({ wrap, status: answer.status }).toEqual({ wrap, status: 401 });
      expect(messageOf(answer)).toMatch(/signature|assertion/i);
    }
  });

  test('a comment put into a signed NameID or group name (the signature ignores comments) changes neither', async () => {
    const mallory: SamlPerson = { nameId: 'alice.mallory', attributes: { groups: ['nap-admins.mallory'] } };
    const browser = new BrowserSession();
    const answer = await signIn(browser, mallory, {
      afterSigning: (xml) =>
        xml.replace('>alice.mallory<', '>alice<!---->.mallory<').replace('>nap-admins.mallory<', '>nap-admins<!---->.mallory<'),
    });
    expect(answer.status).toBe(303);
    const me = await platform.http('GET', '/whoami', { headers: { cookie: `token=${browser.cookie(napUrl, 'token')}` } });
    expect((me.body as Account).username).toBe('alice.mallory');
    expect((me.body as Account).roles).not.toContain('admin');
    expect(await groupProvenances((await accountOf('alice.mallory')).groups)).toEqual(['nap-admins.mallory:corp-saml']);
  });

  test('a group named like an admin group in other letters (full width, invisible characters) is no admin group; one in capitals is', async () => {
    const lookalikes = ['ｎａｐ-ａｄｍｉｎｓ', 'nap-ad\u00admins', 'nap-ad\u200bmins', 'ⓝap-admins'];
    const browser = new BrowserSession();
    expect((await signIn(browser, { nameId: 'eve', attributes: { groups: lookalikes } })).status).toBe(303);
    const eve = await platform.http('GET', '/whoami', { headers: { cookie: `token=${browser.cookie(napUrl, 'token')}` } });
    expect((eve.body as Account).roles).not.toContain('admin');
    expect((await groupProvenances((await accountOf('eve')).groups)).length).toBe(lookalikes.length);
    const capitals = new BrowserSession();
    expect((await signIn(capitals, { nameId: 'carol', attributes: { groups: ['NAP-ADMINS'] } })).status).toBe(303);
    const carol = await platform.http('GET', '/whoami', { headers: { cookie: `token=${capitals.cookie(napUrl, 'token')}` } });
    expect((carol.body as Account).roles).toContain('admin');
  });

  test('a response the browser did not begin (IdP-initiated, or carried to another browser) is refused', async () => {
    const carrier = new BrowserSession();
    idp.signInAs(BOB);
    const page = await carrier.get(`${napUrl}/sso/login?provider=corp-saml`);
    const other = new BrowserSession();
    const carried = await postForm(other, page);
    expect(carried.status).toBe(401);
    expect(messageOf(carried)).toMatch(/not begun in this browser/);
    const unsolicited = await postForm(other, page, { RelayState: '' });
    expect(unsolicited.status).toBe(401);
  });

  test('sign-ins and refusals are in the audit trail', async () => {
    type Record = { actor: { kind: string; username: string; auth: string }; outcome: { status: number } };
    const records = await eventually('the SAML sign-ins in the audit trail', async () => {
      const res = await platform.http('GET', '/audit?operation=admin.samlAcs&limit=100', { token: admin });
      const found = (res.body as { results: Record[] }).results;
      return found.some((r) => r.outcome.status === 401) && found.some((r) => r.actor.username === 'alice') && found;
    });
    expect(
      records.some((r) => r.actor.kind === 'account' && r.actor.username === 'alice' && r.actor.auth === 'sso' && r.outcome.status === 303),
    ).toBe(true);
  });
});

describe('an account stays the person the IdP bound it to (usernameAttribute)', () => {
  const PERSISTENT = 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent';
  const TRANSIENT = 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient';
  const person = (nameId: string, nameIdFormat: string, uid: string): SamlPerson => ({
    nameId,
    nameIdFormat,
    attributes: { uid: [uid], groups: ['netops'] },
  });
  const corpSaml = {
    type: 'saml',
    label: 'Corp SAML',
    idpMetadata: '',
    adminGroups: ['nap-admins'],
    timeoutMs: 3_000,
    usernameAttribute: 'uid',
  };

  test('a persistent NameID: another person presenting the same username attribute is refused; a transient IdP binds to its issuer', async () => {
    const other = await startSamlIdentityProvider({ spEntityId: `${napUrl}/sso/saml/metadata` });
    try {
      await setProviders({ 'corp-saml': { ...corpSaml, idpMetadata: idp.metadataUrl } });
      expect((await signIn(new BrowserSession(), person('p-carol-7f3a', PERSISTENT, 'carol'))).status).toBe(303);
      const mallory = await signIn(new BrowserSession(), person('p-mallory-91c2', PERSISTENT, 'carol'));
      expect(mallory.status).toBe(401);
      expect(messageOf(mallory)).toContain('the account "carol" is bound to another person of this identity provider');
      // nor with a NameID that names nobody for good
      expect((await signIn(new BrowserSession(), person('_t1', TRANSIENT, 'carol'))).status).toBe(401);
      expect((await signIn(new BrowserSession(), person('p-carol-7f3a', PERSISTENT, 'carol'))).status).toBe(303);

      // transient NameIDs change at every sign-in: the account is bound to the issuer
      expect((await signIn(new BrowserSession(), person('_t2', TRANSIENT, 'dave'))).status).toBe(303);
      expect((await signIn(new BrowserSession(), person('_t3', TRANSIENT, 'dave'))).status).toBe(303);
      // the provider pointed at another IdP: its people take none of the accounts of the first
      await setProviders({ 'corp-saml': { ...corpSaml, idpMetadata: other.metadataUrl } });
      for (const who of [person('_t4', TRANSIENT, 'dave'), person('p-other-carol', PERSISTENT, 'carol')]) {
        other.signInAs(who);
        const browser = new BrowserSession();
        const page = await browser.get(`${napUrl}/sso/login?provider=corp-saml`);
        const answer = await postForm(browser, page);
        expect(answer.status).toBe(401);
        expect(messageOf(answer)).toContain(`is bound to the identity provider "${idp.entityId}", not to "${other.entityId}"`);
      }
    } finally {
      await setProviders({ 'corp-saml': { ...corpSaml, idpMetadata: idp.metadataUrl, usernameAttribute: undefined } });
      await other.stop();
    }
  });

  test('an account of before bindings (the last NameID kept) is bound at its next sign-in', () => {
    const persistent = JSON.stringify(['persistent', 'https://idp.example/', 'p-erin']);
    const byAttribute = JSON.stringify(['attribute', 'https://idp.example/', 'uid', 'erin']);
    expect(samlBindingRefusal('p-erin', persistent)).toBeUndefined();
    expect(samlBindingRefusal('p-someone-else', persistent)).toContain('another persistent NameID');
    expect(samlBindingRefusal('_stale-transient', byAttribute)).toBeUndefined();
    // by attribute, then a persistent NameID of the same issuer: bound to it from then on
    expect(samlBindingRefusal(byAttribute, persistent)).toBeUndefined();
    expect(samlBindingRefusal(persistent, byAttribute)).toContain('a NameID of another format');
  });
});

describe('IdP metadata', () => {
  test('the entity id, the HTTP-Redirect sign-on URL and the signing certificate are read; what lacks them is named', async () => {
    const read = await parseIdpMetadata(idp.metadata);
    expect(typeof read).toBe('object');
    if (typeof read === 'string') return;
    expect(read.entityId).toBe(idp.entityId);
    expect(read.ssoUrl).toBe(`${new URL(idp.metadataUrl).origin}/sso`);
    expect(read.certs[0]).toMatch(/^-----BEGIN CERTIFICATE-----\n/);
    expect(await parseIdpMetadata('<nope')).toMatch(/is not XML/);
    expect(await parseIdpMetadata(idp.metadata.replace(/HTTP-Redirect/g, 'SOAP'))).toMatch(/HTTP-Redirect/);
    expect(await parseIdpMetadata(idp.metadata.replace(/<md:KeyDescriptor[\s\S]*<\/md:KeyDescriptor>/, ''))).toMatch(/signing certificate/);
  });
});
