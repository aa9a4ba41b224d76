import { createPrivateKey, generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Identity providers for tests of browser sign-in, started by the test in its own process:
 * an OpenID provider (`oidc-provider`, the certified Node implementation) on a free port. The
 * SAML identity provider lives in `saml-identity-provider.ts`.
 */

/** A person the OpenID provider knows: its claims (sub is the account id). */
export interface OpenIdPerson {
  preferred_username?: string;
  given_name?: string;
  family_name?: string;
  email?: string;
  groups?: string[];
}

/** How the provider spoils the next ID tokens it issues (re-signed with its own key: the signature holds). */
export interface IdTokenTamper {
  aud?: string;
  /** Seconds from now; negative: already expired. */
  expiresIn?: number;
  nonce?: string;
}

export interface OpenIdProviderHandle {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Changes the claims of ID tokens issued from now on (undefined: issue them as the provider makes them). */
  tamper(change: IdTokenTamper | undefined): void;
  /** ID tokens issued so far (after any tamper). */
  issuedIdTokens(): string[];
  /** Refresh tokens issued so far. */
  issuedRefreshTokens(): string[];
  /** Tokens clients revoked so far (RFC 7009, `POST /token/revocation`). */
  revokedTokens(): string[];
  stop(): Promise<void>;
}

/**
 * Starts oidc-provider at `http://127.0.0.1:<free port>` with one confidential client whose redirect
 * URI is `redirectUri`, the people given (any password is accepted: its development interactions
 * ask only for the account id), PKCE required, claims of every scope put into the ID token, RS256
 * keys made here. `tamper` makes the token endpoint answer an ID token with claims the test chose,
 * signed by the provider's key as a provider that is wrong would sign it.
 */
export async function startOpenIdProvider(options: {
  redirectUri: string;
  /** Read at every sign-in and refresh: a test changes a person's groups, or removes them, here. */
  people: Record<string, OpenIdPerson>;
  /** Issue refresh tokens with every code exchange, as Keycloak does (oidc-provider's own default asks for `offline_access`). */
  refreshTokens?: boolean;
}): Promise<OpenIdProviderHandle> {
  const { default: Provider } = await import('oidc-provider');
  // The JWK is exported from a key object of its own, not from the one the key generation made: on
  // Node 20, exporting the latter as JWK can deadlock the thread (the export holds the key's mutex,
  // allocates, and the garbage collector's finalizer of the generation job takes the same mutex).
  const { privateKey: pem } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const privateKey = createPrivateKey(pem);
  const kid = randomUUID();
  const jwk = { ...(privateKey.export({ format: 'jwk' }) as Record<string, string>), kid, alg: 'RS256', use: 'sig' };
  const clientId = 'nap';
  const clientSecret = `secret-${randomUUID()}`;
  let tampered: IdTokenTamper | undefined;
  const issued: string[] = [];
  const refreshTokens: string[] = [];
  const revoked: string[] = [];

  // the port first: the issuer names it
  const server: Server = await new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => resolve(s));
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: options.refreshTokens === true ? ['authorization_code', 'refresh_token'] : ['authorization_code'],
        response_types: ['code'],
      },
    ],
    jwks: { keys: [jwk as never] },
    cookies: { keys: [randomUUID()] },
    pkce: { required: () => true },
    scopes: ['openid', 'profile', 'email', 'groups'],
    claims: {
      openid: ['sub'],
      profile: ['preferred_username', 'given_name', 'family_name'],
      email: ['email'],
      groups: ['groups'],
    },
    conformIdTokenClaims: false,
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    features: { devInteractions: { enabled: true }, revocation: { enabled: true } },
    findAccount: (_ctx, id) => {
      const person = options.people[id];
      if (person === undefined) return undefined;
      return { accountId: id, claims: () => ({ sub: id, ...person }) };
    },
  });
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.path === '/token/revocation' && ctx.status === 200) {
      const token = (ctx.oidc as { params?: { token?: unknown } } | undefined)?.params?.token;
      if (typeof token === 'string') revoked.push(token);
    }
    if (ctx.path !== '/token' || ctx.status !== 200) return;
    const body = ctx.body as { id_token?: string; refresh_token?: string } | undefined;
    if (body?.refresh_token !== undefined) refreshTokens.push(body.refresh_token);
    if (body?.id_token === undefined) return;
    if (tampered !== undefined) body.id_token = resign(body.id_token, tampered, privateKey, kid);
    issued.push(body.id_token);
  });
  server.on('request', provider.callback());
  return {
    issuer,
    clientId,
    clientSecret,
    tamper(change) {
      tampered = change;
    },
    issuedIdTokens: () => [...issued],
    issuedRefreshTokens: () => [...refreshTokens],
    revokedTokens: () => [...revoked],
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The ID token with the tampered claims, signed again (RS256) by the provider's own key. */
function resign(idToken: string, change: IdTokenTamper, key: KeyObject, kid: string): string {
  const [, payload = ''] = idToken.split('.');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  const now = Math.floor(Date.now() / 1000);
  if (change.aud !== undefined) claims.aud = change.aud;
  if (change.nonce !== undefined) claims.nonce = change.nonce;
  if (change.expiresIn !== undefined) {
    claims.exp = now + change.expiresIn;
    claims.iat = Math.min(now, now + change.expiresIn - 60);
  }
  const header = Buffer.from(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid })).toString('base64url');
  const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
  const signature = sign('sha256', Buffer.from(`${header}.${body}`), createPrivateKey(key.export({ format: 'pem', type: 'pkcs8' })));
  return `${header}.${body}.${signature.toString('base64url')}`;
}
