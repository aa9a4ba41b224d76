import { AppError, DEFAULT_OIDC_SCOPES, isAppError } from '@nap/contracts';
import type { OidcProviderConfig } from '@nap/contracts';
import type { Logger } from '@nap/telemetry';
import type * as OpenIdClientModule from 'openid-client' with { 'resolution-mode': 'import' };
import type { Configuration } from 'openid-client' with { 'resolution-mode': 'import' };
import { claimAt, groupNamesOf, providerUnavailable, recheckMinutesOf, serverTimeoutMs } from '../domain/sign-in';
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
 * No re-check: an ID token says who the person was when they signed in, so an open session lasts
 * `recheckMinutes` and the person signs in again (usually without a prompt: the provider remembers
 * them).
 */
export class OpenIdProvider implements BrowserMethod {
  readonly kind = 'browser' as const;
  readonly type = 'oidc';
  readonly label: string;
  readonly recheckMinutes: number;
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
    try {
      const tokens = await client.authorizationCodeGrant(configuration, currentUrl, {
        pkceCodeVerifier: pending.verifier,
        expectedNonce: pending.nonce,
        expectedState: context.state,
        idTokenExpected: true,
      });
      const idToken = tokens.claims();
      if (idToken === undefined) throw new AppError('UNAUTHENTICATED', `Sign-in with "${this.name}" refused: no ID token was issued`);
      claims = { ...idToken };
      const incomplete = claimAt(claims, this.usernameClaim) === undefined || claimAt(claims, this.groupsClaim) === undefined;
      if (incomplete && configuration.serverMetadata().userinfo_endpoint !== undefined) {
        // a thin ID token (Okta's org server): the userinfo answer has the rest, for the same subject
        const userinfo = await client.fetchUserInfo(configuration, tokens.access_token, idToken.sub);
        claims = { ...userinfo, ...claims };
      }
    } catch (err) {
      throw this.refusal(err);
    }
    return this.identityOf(claims);
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
