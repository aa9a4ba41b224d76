import type { Logger } from '@nap/telemetry';
import { adminGroupsOf, providerUnavailable, providersOf } from '../domain/sign-in';
import type { NamedProvider, SignInMethod } from '../domain/sign-in';
import { LdapDirectory } from './ldap-directory';
import { OpenIdProvider } from './openid-provider';
import { RadiusServers } from './radius-servers';
import { SamlIdentityProvider } from './saml-identity-provider';

/** The authentication settings of the active profile, with what identifies their version. */
export interface ActiveAuthentication {
  /** Changes whenever the active profile or its content changes (its id and last update). */
  version: string;
  /** Its `authenticationProps`, secrets opened: asked only when the version is new. */
  authenticationProps(): unknown;
}

/** What a method may need beyond its provider: where browsers reach the platform. */
export interface MethodOptions {
  /** `NAP_PUBLIC_URL` (an origin): the redirect URI and assertion consumer of browser methods derive from it. */
  publicUrl?: string | undefined;
}

/** Builds the method of a provider of one type; throws (naming what is missing) when it cannot be built. */
export type MethodFactory = (provider: NamedProvider, adminGroups: string[], log: Logger, options: MethodOptions) => SignInMethod;

/** The public URL a browser method needs; throws when `NAP_PUBLIC_URL` is not set. */
function publicUrlOf(options: MethodOptions, provider: NamedProvider): string {
  if (options.publicUrl === undefined)
    throw new Error(
      `NAP_PUBLIC_URL is not set: the ${provider.config.type} provider "${provider.name}" needs it for its redirect URI (<NAP_PUBLIC_URL>/sso/…)`,
    );
  return options.publicUrl;
}

/** The method of each type of provider. */
export const METHOD_FACTORIES: Readonly<Record<string, MethodFactory>> = {
  ldap: (provider, adminGroups, log) => {
    if (provider.config.type !== 'ldap') throw new TypeError(`provider ${provider.name} is not ldap`);
    return new LdapDirectory(provider.name, provider.config, adminGroups, log);
  },
  radius: (provider, adminGroups, log) => {
    if (provider.config.type !== 'radius') throw new TypeError(`provider ${provider.name} is not radius`);
    return new RadiusServers(provider.name, provider.config, adminGroups, log);
  },
  oidc: (provider, adminGroups, log, options) => {
    if (provider.config.type !== 'oidc') throw new TypeError(`provider ${provider.name} is not oidc`);
    return new OpenIdProvider(provider.name, provider.config, adminGroups, publicUrlOf(options, provider), log);
  },
  saml: (provider, adminGroups, log, options) => {
    if (provider.config.type !== 'saml') throw new TypeError(`provider ${provider.name} is not saml`);
    return new SamlIdentityProvider(provider.name, provider.config, adminGroups, publicUrlOf(options, provider), log);
  },
};

/**
 * The external sign-in methods of the active profile's `authenticationProps.providers`, built from
 * it and built again as soon as it changes (another profile activated, this one updated): the
 * configuration is read at each sign-in and each re-check, so a change applies to the next one on
 * every replica without a restart. Disabled providers are left out.
 */
export class SignInMethods {
  private built:
    { version: string; methods: SignInMethod[]; leftOut: Map<string, string> } | { version: string; problem: string } | undefined;

  constructor(
    private readonly load: () => Promise<ActiveAuthentication>,
    private readonly log: Logger,
    private readonly options: MethodOptions = {},
  ) {}

  /** Every enabled method, in the order the profile writes them. */
  async all(): Promise<SignInMethod[]> {
    const active = await this.load();
    if (this.built?.version !== active.version) await this.rebuild(active);
    const built = this.built;
    if (built === undefined || 'problem' in built) throw providerUnavailable('(configuration)', built?.problem ?? 'not built');
    return built.methods;
  }

  /** The enabled method of that name; undefined when there is none. */
  async named(name: string): Promise<SignInMethod | undefined> {
    return (await this.all()).find((m) => m.name === name);
  }

  /** Why the active profile's provider of that name signs nobody in though enabled (it could not be built); undefined otherwise. */
  async leftOut(name: string): Promise<string | undefined> {
    await this.all();
    const built = this.built;
    return built !== undefined && 'leftOut' in built ? built.leftOut.get(name) : undefined;
  }

  /** Closes what the methods hold open (the service stops). */
  async close(): Promise<void> {
    const built = this.built;
    this.built = undefined;
    if (built !== undefined && 'methods' in built) await Promise.all(built.methods.map((m) => m.close()));
  }

  private async rebuild(active: ActiveAuthentication): Promise<void> {
    const before = this.built;
    try {
      const authenticationProps = active.authenticationProps();
      const providers = providersOf(authenticationProps, 'authenticationProps');
      const leftOut = new Map<string, string>();
      const methods = providers
        .filter((provider) => provider.config.enabled !== false)
        .flatMap((provider) => {
          const factory = METHOD_FACTORIES[provider.config.type];
          if (factory === undefined) {
            this.log.error(
              { provider: provider.name, type: provider.config.type },
              'No sign-in method of this type is built; the provider is left out',
            );
            leftOut.set(provider.name, `no sign-in method of type "${provider.config.type}" is built`);
            return [];
          }
          try {
            return [
              factory(provider, adminGroupsOf(provider, authenticationProps), this.log.child({ provider: provider.name }), this.options),
            ];
          } catch (err) {
            // one provider that cannot be built leaves the others (and local accounts) signing in
            this.log.error(
              { provider: provider.name, err: (err as Error).message },
              'Sign-in method cannot be built; the provider is left out',
            );
            leftOut.set(provider.name, (err as Error).message);
            return [];
          }
        });
      this.built = { version: active.version, methods, leftOut };
      if (methods.length > 0)
        this.log.info({ methods: methods.map((m) => `${m.name} (${m.type})`) }, 'Sign-in methods of the active profile');
    } catch (err) {
      // a profile is checked when it is written; one that still does not parse (written by an older release) is named in every 503
      const problem = err instanceof Error ? err.message : String(err);
      this.log.error({ err: problem }, 'The sign-in methods of the active profile cannot be used');
      this.built = { version: active.version, problem };
    }
    if (before !== undefined && 'methods' in before) await Promise.all(before.methods.map((m) => m.close().catch(() => undefined)));
  }
}
