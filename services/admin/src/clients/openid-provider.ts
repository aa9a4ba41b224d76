import { AppError, DEFAULT_OIDC_SCOPES, isAppError } from '@nap/contracts';
import type { OidcProviderConfig } from '@nap/contracts';
import type { Logger } from '@nap/telemetry';
import type * as OpenIdClientModule from 'openid-client' with { 'resolution-mode': 'import' };
import type { Configuration } from 'openid-client' with { 'resolution-mode': 'import' };
import { boundToSubject, claimAt, groupNamesOf, providerUnavailable, recheckMinutesOf, serverTimeoutMs } from '../domain/sign-in';
import type { BrowserFinishContext, BrowserMethod, BrowserStart, ExternalIdentity } from '../domain/sign-in';
import { isUnreachable } from './unreachable';

/** openid-client, an ES module loaded once on first use (the admin service is CommonJS). */
type OpenIdClient = typeof OpenIdClientModule;
let library: Promise<OpenIdClient> | undefined;
function openIdClient(): Promise<OpenIdClient> {
  library ??= import('openid-client');
  return library;
}

/**
 * An OpenID Connect provider (Entra ID, Okta, Keycloak, …) through openid-client: the provider's
 * configuration by discovery, the authorization code flow with PKCE (S256), `state` and `nonce`,
 * and the ID token's signature checked against the provider's keys (non-repudiation checks on)
 * with its issuer, audience, expiry and nonce. The person is the `usernameClaim` of the ID token
 * (or of the userinfo answer when the ID token leaves it out), their groups the `groupsClaim`.
 *
 * Re-check with the refresh token, when the provider issues one (Keycloak does; Entra ID and Okta
 * with the `offline_access` scope): a refresh grant answers a new ID token (or the userinfo answer)
 * with the person's groups as they are now, and is refused (`invalid_grant`) once the provider no
 * longer lets them in, which ends their sessions. Without a refresh token an ID token only says
 * who the person was when they signed in, so an open session lasts `recheckMinutes` and the person
 * signs in again (usually without a prompt: the provider remembers them).
 */
export class OpenIdProvider implements BrowserMethod {
  readonly kind = 'browser' as const;
  readonly type = 'oidc';
  readonly label: string;
  readonly recheckMinutes: number;
  readonly recheckNeedsRenewal = true;
  readonly samePerson = boundToSubject;
  private readonly redirectUri: string;
  private readonly timeoutMs: number;
  private discovered: Promise<Configuration> | undefined;

  constructor(
    readonly name: string,
    private readonly config: OidcProviderConfig,
    readonly adminGroups: string[],
    publicUrl: string,
    private readonly log: Logger,
  ) {
    this.label = config.label ?? name;
    this.recheckMinutes = recheckMinutesOf(config);
    this.redirectUri = `${publicUrl}/sso/callback`;
    this.timeoutMs = serverTimeoutMs(config);
  }

  async start(): Promise<BrowserStart> {
    const client = await openIdClient();
    const configuration = await this.configuration();
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(configuration, {
      redirect_uri: this.redirectUri,
      scope: (this.config.scopes ?? DEFAULT_OIDC_SCOPES).join(' '),
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { redirectUrl: url.href, state, pending: { verifier, nonce } };
  }

  async finish(
    callback: { query: Record<string, string>; form: Record<string, string> },
    pending: Record<string, string>,
    context: BrowserFinishContext,
  ): Promise<ExternalIdentity> {
    const client = await openIdClient();
    const configuration = await this.configuration();
    const currentUrl = new URL(this.redirectUri);
    for (const [key, value] of Object.entries(callback.query)) currentUrl.searchParams.set(key, value);
    let claims: Record<string, unknown>;
    let renewal: string | undefined;
    try {
      const tokens = await client.authorizationCodeGrant(configuration, currentUrl, {
        pkceCodeVerifier: pending.verifier,
        expectedNonce: pending.nonce,
        expectedState: context.state,
        idTokenExpected: true,
      });
      const idToken = tokens.claims();
      if (idToken === undefined) throw new AppError('UNAUTHENTICATED', `Sign-in with "${this.name}" refused: no ID token was issued`);
      claims = await this.completed(configuration, { ...idToken }, tokens.access_token, idToken.sub);
      renewal = tokens.refresh_token;
    } catch (err) {
      throw this.refusal(err);
    }
    const identity = this.identityOf(claims);
    if (renewal !== undefined) identity.renewal = renewal;
    return identity;
  }

  /**
   * The person as the provider sees them now, by a refresh grant with the session's refresh token:
   * null when the provider refuses it (`invalid_grant`: the person was removed or disabled, or the
   * grant was revoked), 503 when it does not answer. The subject must be the one that signed in.
   */
  async recheck(account: {
    username: string;
    externalId?: string | undefined;
    renewal?: string | undefined;
  }): Promise<ExternalIdentity | null> {
    // a session without a refresh token cannot be re-checked (recheckNeedsRenewal): it is not a person the provider forgot
    if (account.renewal === undefined)
      throw new AppError(
        'UNAUTHENTICATED',
        `Sign-in method "${this.name}" cannot confirm a session begun without a refresh token; log in again`,
      );
    const client = await openIdClient();
    const configuration = await this.configuration();
    let claims: Record<string, unknown>;
    let renewal: string;
    try {
      const tokens = await client.refreshTokenGrant(configuration, account.renewal);
      const subject = tokens.claims()?.sub ?? account.externalId;
      if (subject === undefined) return null;
      claims = await this.completed(configuration, { ...(tokens.claims() ?? { sub: subject }) }, tokens.access_token, subject);
      if (account.externalId !== undefined && claims.sub !== account.externalId) return null;
      // a provider that rotates refresh tokens answers a new one; one that does not keeps the old one valid
      renewal = tokens.refresh_token ?? account.renewal;
    } catch (err) {
      if ((err as { error?: unknown }).error === 'invalid_grant') {
        this.log.info({ username: account.username, err: describe(err) }, 'OpenID provider refused the refresh of a session');
        return null;
      }
      throw this.refusal(err);
    }
    return { ...this.identityOf(claims), renewal };
  }

  /** Revokes a refresh token at the provider's revocation endpoint; nothing when the provider has none. */
  async revoke(renewal: string): Promise<void> {
    const client = await openIdClient();
    const configuration = await this.configuration();
    if (configuration.serverMetadata().revocation_endpoint === undefined) return;
    try {
      await client.tokenRevocation(configuration, renewal, { token_type_hint: 'refresh_token' });
    } catch (err) {
      throw this.refusal(err);
    }
  }

  async close(): Promise<void> {
    this.discovered = undefined;
  }

  private get usernameClaim(): string {
    return this.config.usernameClaim ?? 'preferred_username';
  }

  private get groupsClaim(): string {
    return this.config.groupsClaim ?? 'groups';
  }

  /** The claims of an ID token, completed by the userinfo answer when it leaves out the username or the groups (Okta's org server). */
  private async completed(
    configuration: Configuration,
    claims: Record<string, unknown>,
    accessToken: string,
    subject: string,
  ): Promise<Record<string, unknown>> {
    const incomplete = claimAt(claims, this.usernameClaim) === undefined || claimAt(claims, this.groupsClaim) === undefined;
    if (!incomplete || configuration.serverMetadata().userinfo_endpoint === undefined) return claims;
    const client = await openIdClient();
    const userinfo = await client.fetchUserInfo(configuration, accessToken, subject);
    return { ...userinfo, ...claims };
  }

  /** The person the claims name; 401 when the username claim is missing. */
  private identityOf(claims: Record<string, unknown>): ExternalIdentity {
    const username = claimAt(claims, this.usernameClaim);
    if (typeof username !== 'string' || username === '')
      throw new AppError(
        'UNAUTHENTICATED',
        `Sign-in with "${this.name}" refused: the identity provider sent no "${this.usernameClaim}" claim (usernameClaim) for subject "${String(claims.sub)}"`,
      );
    const identity: ExternalIdentity = { username, groups: groupNamesOf(claimAt(claims, this.groupsClaim)) };
    if (typeof claims.sub === 'string') identity.externalId = claims.sub;
    if (typeof claims.given_name === 'string') identity.firstname = claims.given_name;
    if (typeof claims.family_name === 'string') identity.lastname = claims.family_name;
    if (typeof claims.email === 'string') identity.email = claims.email;
    return identity;
  }

  /** The provider's configuration, discovered once (again after a failure); 503 when the provider does not answer. */
  private configuration(): Promise<Configuration> {
    if (this.discovered === undefined) {
      const attempt = this.discover();
      this.discovered = attempt;
      attempt.catch(() => {
        if (this.discovered === attempt) this.discovered = undefined;
      });
    }
    return this.discovered;
  }

  private async discover(): Promise<Configuration> {
    const client = await openIdClient();
    const issuer = new URL(this.config.issuer);
    const timeoutMs = this.timeoutMs;
    // every call to the provider (discovery, keys, token, userinfo) is bounded by the provider's timeout
    const timedFetch = (url: string, options: RequestInit): Promise<Response> =>
      fetch(url, { ...options, signal: AbortSignal.timeout(timeoutMs) });
    // checkProvider allows http only on a loopback address
    const execute =
      issuer.protocol === 'http:' ? [client.enableNonRepudiationChecks, client.allowInsecureRequests] : [client.enableNonRepudiationChecks];
    try {
      const configuration = await client.discovery(
        issuer,
        this.config.clientId,
        undefined,
        this.config.clientSecret === undefined ? client.None() : client.ClientSecretBasic(this.config.clientSecret),
        { execute, [client.customFetch]: timedFetch as never },
      );
      this.log.info({ issuer: issuer.href }, 'OpenID provider discovered');
      return configuration;
    } catch (err) {
      this.log.warn({ issuer: issuer.href, err: describe(err) }, 'OpenID provider discovery failed');
      throw providerUnavailable(this.name, `discovery at ${issuer.href} failed: ${describe(err)}`, err);
    }
  }

  /** A failure of the code exchange or of a check: 503 when the provider did not answer, 401 naming the check otherwise. */
  private refusal(err: unknown): AppError {
    if (isAppError(err)) return err;
    if (isUnreachable(err)) return providerUnavailable(this.name, `no answer from ${this.config.issuer}: ${describe(err)}`, err);
    const status = (err as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 500)
      return providerUnavailable(this.name, `${this.config.issuer} answered ${status}: ${describe(err)}`, err);
    this.log.info({ err: describe(err) }, 'OpenID sign-in refused');
    return new AppError('UNAUTHENTICATED', `Sign-in with "${this.name}" refused: ${describe(err)}`, { cause: err });
  }
}

/** An error of openid-client as one line: its message, the provider's error code and description when it sent one. */
function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const { error, error_description: description } = err as { error?: unknown; error_description?: unknown };
  const said = typeof error === 'string' ? ` (${error}${typeof description === 'string' ? `: ${description}` : ''})` : '';
  // openid-client names the kind of failure, its cause (oauth4webapi) the check: 'unexpected JWT "aud" (audience) claim value'
  const cause = err.cause instanceof Error && err.cause.message !== err.message ? `: ${err.cause.message}` : '';
  return `${err.message}${said}${cause}`;
}
