import type { Static } from '@sinclair/typebox';
import { APPLICATION_NAMES } from '../applications';
import { arr, bool, closed, embed, int, mapOf, name, num, obj, oneOf, open, str, strings, withId } from './common';
import { loggerPropsSchema } from './integration';
import { signInProviderSchema } from './sign-in';

/** Kinds of prebuilt repository: a directory of packages on the platform's host, or a GitLab group. */
export const REPOSITORY_TYPES = ['local', 'gitlab'] as const;
/** A kind of prebuilt repository. */
export type RepositoryType = (typeof REPOSITORY_TYPES)[number];

/** A prebuilt repository configuration (`prebuiltProps.repoConfigs.<name>` of the active profile). */
export const repositoryConfigSchema = withId(
  'nap:schemas/repository-config',
  closed(
    {
      type: oneOf(REPOSITORY_TYPES, {
        description: 'local: a directory of packages (JSON files) on the host; gitlab: the projects of a GitLab group',
      }),
      enabled: bool({ description: 'listed by GET /prebuilts-repository; default true' }),
      path: name('local: absolute directory; gitlab: the group path, for example itentialopensource/pre-built-automations'),
      hostname: name('gitlab: host[:port] of the GitLab server, for example gitlab.com'),
      protocol: oneOf(['https', 'http'], { description: 'gitlab: default https' }),
      credentials: closed({ token: str({ description: 'gitlab: personal access token; sealed at rest, answered as ********' }) }),
      description: str(),
    },
    ['type', 'path'],
  ),
);
/** A prebuilt repository configuration. */
export type RepositoryConfig = Static<typeof repositoryConfigSchema>;

/** A repository configuration as the routes answer it: its name, never its token. */
export const repositoryConfigViewSchema = withId(
  'nap:schemas/repository-config-view',
  obj(
    {
      name: str(),
      type: oneOf(REPOSITORY_TYPES),
      enabled: bool(),
      path: str(),
      hostname: str(),
      protocol: str(),
      credentials: obj({ token: str({ description: 'always ******** when set' }) }),
      description: str(),
    },
    ['name', 'type', 'enabled', 'path'],
  ),
);

/**
 * The profile: the platform's configuration document, as the original platform keeps it. Exactly
 * one profile is active. What NAP applies while it runs: `loggerProps` (log levels of every
 * application), `authenticationProps.logoutTime` (minutes a session may stay unused),
 * `authenticationProps.providers` and `authenticationProps.admins` (external sign-in methods),
 * `authenticationProps.passwordRules` and `authenticationProps.loginThrottle` (login protection),
 * `integrationProps.timeout` (bound of integration and adapter calls) and `prebuiltProps.repoConfigs`
 * (the prebuilt repositories); the rest is kept as the record of the platform's configuration and
 * takes effect when the processes restart (NAP reads those settings from `NAP_*` variables).
 */
export const profileSchema = withId(
  'nap:schemas/profile',
  closed(
    {
      id: name('unique profile name'),
      description: str(),
      services: arr(oneOf(APPLICATION_NAMES), { uniqueItems: true, description: 'applications this profile runs' }),
      uiProps: open({ description: str(), layout: str(), home: str(), login: str(), profile: str(), fav_icon: str() }),
      authenticationProps: open({
        description: str(),
        logoutTime: int({ minimum: 1, maximum: 525_600, description: 'minutes a session may stay unused before it ends; applied at once' }),
        uniqueSession: bool(),
        admins: arr(open({ group: str(), provenance: str() }), {
          description: 'groups whose members hold the admin role: group as the method names it, provenance the name of the provider',
        }),
        broker: str(),
        providers: mapOf(signInProviderSchema, {
          description:
            'external sign-in methods by name (the provenance of the accounts and groups they bring in); applied at once (docs/authentication.md)',
        }),
        passwordRules: closed(
          {
            minLength: int({
              minimum: 8,
              maximum: 1024,
              description: 'fewest characters of a new password (account creation, password changes); 12 by default; applied at once',
            }),
          },
          [],
          { description: 'rules every new password must meet; applied at once' },
        ),
        loginThrottle: closed(
          {
            accountFailures: int({
              minimum: 1,
              maximum: 1000,
              description: 'failed logins for one username before its logins wait (right password included); 5 by default',
            }),
            addressFailures: int({
              minimum: 1,
              maximum: 1_000_000,
              description: 'failed logins from one address, across usernames, before its logins wait; 50 by default',
            }),
            windowMinutes: int({
              minimum: 1,
              maximum: 1440,
              description: 'failures are forgotten after this many minutes without one (counted from the end of any wait); 15 by default',
            }),
            firstWaitSeconds: int({
              minimum: 1,
              maximum: 86_400,
              description: 'the first wait once the threshold is reached; each further failure doubles it; 60 by default',
            }),
            maxWaitMinutes: int({ minimum: 1, maximum: 1440, description: 'the longest wait; 15 by default' }),
          },
          [],
          {
            description:
              'throttling of failed logins (POST /login, POST /oauth/token, Basic, PUT /whoami/password) per username and per source address; applied at once',
          },
        ),
      }),
      expressProps: open({
        description: str(),
        cacheControl: bool(),
        timeout: int({ minimum: 0, description: 'ms; read at start' }),
        access_control_allow_origin: str(),
        express_http: open({ enable: bool(), port: int({ minimum: 0, maximum: 65535 }) }),
        express_https: open({
          enable: bool(),
          port: int({ minimum: 0, maximum: 65535 }),
          key: str(),
          passphrase: str(),
          cert: str(),
          secureProtocol: str(),
          ciphers: str(),
          client_reneg_limit: int(),
        }),
        allowedHttpOptionalVerbs: strings(),
      }),
      loggerProps: embed(loggerPropsSchema, {
        description:
          'log_level and console_level (error, warn, info, debug, trace, spam) apply at once to every application that sets none of its own',
      }),
      redisProps: open({ host: str(), port: int({ minimum: 0, maximum: 65535 }) }),
      auditProps: open({
        audit: bool(),
        brokerValidation: bool(),
        retentionDays: int({
          minimum: 1,
          maximum: 36_500,
          description: 'days the audit trail keeps a record (400 by default); older records are removed hourly, applied at once',
        }),
      }),
      systemProps: open({
        shutdownTimeout: num({ minimum: 0 }),
        servicesBlacklist: strings(),
        launchDelay: num({ minimum: 0 }),
        launchTimeout: num({ minimum: 0 }),
        deadProcessCheck: bool(),
        externalRequestTimeout: num({ minimum: 0 }),
      }),
      integrationProps: open({
        threadCount: int({ minimum: 1 }),
        timeout: int({
          minimum: 1,
          maximum: 600_000,
          description: 'ms; bound of integration and adapter calls that name none; applied at once',
        }),
      }),
      retryStrategy: open({ maxRetries: int({ minimum: 0 }), retryResetTimer: int({ minimum: 0 }) }),
      serviceDirectory: str(),
      adapterStrategy: open({ device: open({}), adapterTypes: strings() }),
      applicationProps: open({ directory: str() }),
      pathProps: open({ encrypted: bool() }),
      alarmProps: arr(open({ ip: str(), community: str(), properties: open({}), type: str() })),
      retentionProps: open({
        jobsDays: int({
          minimum: 0,
          maximum: 36_500,
          description:
            'finished root jobs (with their child jobs) that ended more than this many days ago are moved into a job archive; 0: never; applied at once',
        }),
      }),
      prebuiltProps: closed({ repoConfigs: mapOf(embed(repositoryConfigSchema), { description: 'repository configurations by name' }) }),
    },
    ['id'],
  ),
);
/** The profile document. */
export type Profile = Static<typeof profileSchema>;

/** A profile record as the routes answer it: `{ metadata, profile }`, secrets answered as ********. */
export const profileRecordSchema = withId(
  'nap:schemas/profile-record',
  obj(
    {
      metadata: obj({ isActive: bool(), activeSync: bool({ description: 'true when every running replica applied its live settings' }) }, [
        'isActive',
        'activeSync',
      ]),
      profile: embed(profileSchema),
    },
    ['metadata', 'profile'],
  ),
);

/** What switching (or changing the active) profile did. */
export const profileChangeSchema = withId(
  'nap:schemas/profile-change',
  obj(
    {
      metadata: obj({ isActive: bool(), activeSync: bool() }, ['isActive', 'activeSync']),
      profile: embed(profileSchema),
      applied: strings({ description: 'members applied at once on every replica' }),
      restartRequired: strings({ description: 'members that changed and take effect when the processes restart' }),
    },
    ['metadata', 'profile', 'applied', 'restartRequired'],
  ),
);
