import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { DEFAULT_MIN_FREE_BYTES } from '@nap/store';
import { BODY_LIMITS, DEFAULT_MAX_JSON_DEPTH, DEFAULT_MAX_PARAM_LENGTH, MAX_BODY_LIMIT_BYTES, precompiledValidator } from '@nap/contracts';
import type { LdapProviderConfig, OidcProviderConfig, RadiusProviderConfig, SamlProviderConfig, ValidatorOptions } from '@nap/contracts';

/** Configuration of every NAP process, from `NAP_*` environment variables. */
export interface RuntimeConfig {
  /** NATS servers; unset in standalone mode, which uses the in-process bus. */
  natsUrl?: string;
  /** MongoDB URL; unset means the embedded store under `dataDir`. */
  mongoUrl?: string;
  dataDir: string;
  /** `NAP_DATA_MIN_FREE_MB` (128): free space the disk under the embedded stores keeps; writes are refused (`STORE_FULL`) below it. 0 turns the check off. */
  dataMinFreeBytes: number;
  host: string;
  port: number;
  /** `NAP_HEALTH_PORT`: the management listener (`/health/live`, `/health/ready`, `/metrics`); none when unset. */
  healthPort?: number;
  logLevel: string;
  adminUsername: string;
  adminPassword?: string;
  /**
   * `NAP_ADMIN_PASSWORD_RESET=true`: apply `NAP_ADMIN_PASSWORD` to the first administrator that
   * exists already (a forgotten password); without it the variable only sets the password of the
   * account the first start creates.
   */
  adminPasswordReset: boolean;
  /** Secret that encrypts secrets at rest (signing keys, device passwords). */
  secretKey: string;
  tokenTtlSeconds: number;
  /** Largest request body of an operation, bytes (`NAP_BODY_LIMIT_BYTES`, 1 MiB). */
  bodyLimitBytes: number;
  /** Largest request body of the operations that take whole documents (catalog `bodyLimit: 'document'`), bytes (`NAP_DOCUMENT_BODY_LIMIT_BYTES`, 8 MiB). */
  documentBodyLimitBytes: number;
  /**
   * How many times faster than real time the platform's waits pass: workflow `delay` (and `stub`
   * delay) tasks and MOP re-attempt waits. 1 (real time) unless `NAP_TIME_SCALE` says otherwise; a
   * test setting, like Temporal's time-skipping test environment, never for production.
   */
  timeScale: number;
  /** Deepest nesting of objects and arrays accepted in user JSON (400 `JSON_TOO_DEEP` beyond). */
  maxJsonDepth: number;
  /** Longest path parameter in characters (400 `PARAMETER_TOO_LONG` beyond). */
  maxParamLength: number;
  /** Time a client has to send a request's headers, ms. */
  headersTimeoutMs: number;
  /** Time a client has to send a whole request (headers and body), ms. */
  requestTimeoutMs: number;
  /**
   * `NAP_PUBLIC_URL`: where people reach the platform (`https://nap.example.net`). Its origin is the
   * platform's own for the cross-site rule of cookie sessions, and an https URL makes the `token`
   * cookie `Secure` and turns HSTS on.
   */
  publicUrl?: string;
  /** `NAP_ALLOWED_ORIGINS`: further origins (comma-separated) whose pages may change things with the cookie session. */
  allowedOrigins?: string[];
  /** `NAP_TRUST_PROXY`: believe `X-Forwarded-Proto` and `X-Forwarded-Host` of the proxy in front of the gateway. */
  trustProxy?: boolean;
  /** `NAP_STREAMS_PER_CALLER`: event streams one caller may hold open at once on a gateway (429 `TOO_MANY_STREAMS` beyond); 100. */
  streamsPerCaller: number;
  /** `NAP_CONSOLE_DIR`: the built console (`console/dist`) the gateway serves at `/console/`; found beside the gateway when unset. */
  consoleDir?: string;
  /**
   * `NAP_AUDIT=off` turns the gateway's audit trail off: for measuring what it costs
   * (`test/bench/audit.mjs`), never for production. On unless set so.
   */
  auditTrail: boolean;
  /**
   * `NAP_LDAP_*`: an LDAP directory for a first start. The admin service writes it into the active
   * profile's `authenticationProps.providers.ldap` when that profile has no provider of that name;
   * from then on the profile is what counts.
   */
  ldap?: LdapProviderConfig;
  /** `NAP_RADIUS_*`: RADIUS servers for a first start, written into `authenticationProps.providers.radius` as `ldap` is. */
  radius?: RadiusProviderConfig;
  /** `NAP_OIDC_*`: an OpenID provider for a first start, written into `authenticationProps.providers.oidc` as `ldap` is. */
  oidc?: OidcProviderConfig;
  /** `NAP_SAML_*`: a SAML identity provider for a first start, written into `authenticationProps.providers.saml` as `ldap` is. */
  saml?: SamlProviderConfig;
  /**
   * `NAP_TLS_CERT_FILE` and `NAP_TLS_KEY_FILE` (both or neither): the gateway serves https itself
   * with this PEM certificate chain and private key, for a single host without an ingress.
   */
  tls?: { certFile: string; keyFile: string };
  /**
   * Standalone with the in-process bus: bytes of events its stream keeps in memory (counted as
   * JetStream counts them; the heap holds about 1.5 times that), the oldest dropped first. 32 MiB unless
   * `NAP_MEMORY_EVENTS_MAX_BYTES` says otherwise. NATS keeps its stream on disk (1 GiB, 7 days).
   */
  memoryEventsMaxBytes: number;
}

/**
 * Default of {@link RuntimeConfig.memoryEventsMaxBytes}: 32 MiB, about 80,000 job events (10,000 short
 * jobs): room for event streams resumed after minutes and consumers that lag, while the process's
 * memory stays flat however many jobs it runs. The job documents stay the record of what happened.
 */
export const DEFAULT_MEMORY_EVENTS_MAX_BYTES = 32 * 1024 * 1024;

const ENV_SCHEMA = {
  type: 'object',
  properties: {
    NAP_NATS_URL: { type: 'string', minLength: 1 },
    NAP_MONGO_URL: { type: 'string', pattern: '^mongodb(\\+srv)?://' },
    NAP_DATA_DIR: { type: 'string', minLength: 1 },
    NAP_DATA_MIN_FREE_MB: { type: 'integer', minimum: 0, maximum: 1_048_576 },
    NAP_HOST: { type: 'string', minLength: 1 },
    NAP_PORT: { type: 'integer', minimum: 0, maximum: 65535 },
    NAP_HEALTH_PORT: { type: 'integer', minimum: 0, maximum: 65535 },
    NAP_LOG_LEVEL: { enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] },
    NAP_ADMIN_USERNAME: { type: 'string', minLength: 1 },
    NAP_ADMIN_PASSWORD: { type: 'string', minLength: 8 },
    NAP_ADMIN_PASSWORD_RESET: { enum: ['true', 'false'] },
    NAP_SECRET_KEY: { type: 'string', minLength: 16 },
    NAP_TOKEN_TTL_SECONDS: { type: 'integer', minimum: 60 },
    NAP_BODY_LIMIT_BYTES: { type: 'integer', minimum: 1024, maximum: MAX_BODY_LIMIT_BYTES },
    NAP_DOCUMENT_BODY_LIMIT_BYTES: { type: 'integer', minimum: 1024, maximum: MAX_BODY_LIMIT_BYTES },
    NAP_TIME_SCALE: { type: 'number', exclusiveMinimum: 0, maximum: 1_000_000 },
    NAP_MAX_JSON_DEPTH: { type: 'integer', minimum: 8, maximum: 10_000 },
    NAP_MAX_PARAM_LENGTH: { type: 'integer', minimum: 64, maximum: 1024 },
    NAP_HEADERS_TIMEOUT_MS: { type: 'integer', minimum: 1000 },
    NAP_REQUEST_TIMEOUT_MS: { type: 'integer', minimum: 1000 },
    NAP_PUBLIC_URL: { type: 'string', pattern: '^https?://[^/?#]+' },
    NAP_ALLOWED_ORIGINS: { type: 'string' },
    NAP_TRUST_PROXY: { enum: ['1', '0', 'true', 'false', 'yes', 'no'] },
    NAP_CONSOLE_DIR: { type: 'string', minLength: 1 },
    NAP_STREAMS_PER_CALLER: { type: 'integer', minimum: 1, maximum: 100_000 },
    NAP_AUDIT: { enum: ['on', 'off'] },
    NAP_LDAP_URL: { type: 'string', pattern: '^\\s*ldaps?://' },
    NAP_LDAP_BIND_DN: { type: 'string', minLength: 1 },
    NAP_LDAP_BIND_PASSWORD: { type: 'string', minLength: 1 },
    NAP_LDAP_USER_BASE: { type: 'string', minLength: 1 },
    NAP_LDAP_USER_FILTER: { type: 'string', pattern: '\\{\\{username\\}\\}' },
    NAP_LDAP_GROUP_BASE: { type: 'string', minLength: 1 },
    NAP_LDAP_GROUP_FILTER: { type: 'string', pattern: '\\{\\{(dn|username)\\}\\}' },
    NAP_LDAP_NESTED_GROUPS: { enum: ['1', '0', 'true', 'false', 'yes', 'no'] },
    NAP_LDAP_ADMIN_GROUPS: { type: 'string' },
    NAP_LDAP_CA_FILE: { type: 'string', minLength: 1 },
    NAP_LDAP_STARTTLS: { enum: ['1', '0', 'true', 'false', 'yes', 'no'] },
    NAP_LDAP_TIMEOUT_MS: { type: 'integer', minimum: 100, maximum: 9000 },
    NAP_RADIUS_SERVERS: { type: 'string', minLength: 1 },
    NAP_RADIUS_SECRET: { type: 'string', minLength: 1 },
    NAP_RADIUS_TIMEOUT_MS: { type: 'integer', minimum: 100, maximum: 9000 },
    NAP_RADIUS_ADMIN_GROUPS: { type: 'string' },
    NAP_OIDC_ISSUER: { type: 'string', pattern: '^https?://' },
    NAP_OIDC_CLIENT_ID: { type: 'string', minLength: 1 },
    NAP_OIDC_CLIENT_SECRET: { type: 'string', minLength: 1 },
    NAP_OIDC_SCOPES: { type: 'string', pattern: '(^|[\\s,])openid($|[\\s,])' },
    NAP_OIDC_GROUPS_CLAIM: { type: 'string', minLength: 1 },
    NAP_OIDC_USERNAME_CLAIM: { type: 'string', minLength: 1 },
    NAP_OIDC_ADMIN_GROUPS: { type: 'string' },
    NAP_OIDC_LABEL: { type: 'string', minLength: 1, maxLength: 64 },
    NAP_SAML_IDP_METADATA: { type: 'string', minLength: 1 },
    NAP_SAML_SP_ENTITY_ID: { type: 'string', minLength: 1 },
    NAP_SAML_GROUPS_ATTRIBUTE: { type: 'string', minLength: 1 },
    NAP_SAML_USERNAME_ATTRIBUTE: { type: 'string', minLength: 1 },
    NAP_SAML_ADMIN_GROUPS: { type: 'string' },
    NAP_SAML_LABEL: { type: 'string', minLength: 1, maxLength: 64 },
    NAP_TLS_CERT_FILE: { type: 'string', minLength: 1 },
    NAP_TLS_KEY_FILE: { type: 'string', minLength: 1 },
    NAP_MEMORY_EVENTS_MAX_BYTES: { type: 'integer', minimum: 65_536 },
  },
} as const;

/** What a setting checked by a pattern must look like, in words: Ajv's "must match pattern" names none. */
const PATTERN_HINTS: Record<string, string> = {
  NAP_MONGO_URL: 'a MongoDB connection string, mongodb://… or mongodb+srv://…',
  NAP_PUBLIC_URL: 'where people reach NAP, such as https://nap.example.net',
  NAP_LDAP_URL: 'LDAP server URLs such as ldaps://dc1.example.net:636 (several space- or comma-separated)',
  NAP_LDAP_USER_FILTER: 'an LDAP filter that holds {{username}}, such as (uid={{username}})',
  NAP_LDAP_GROUP_FILTER: 'an LDAP filter that holds {{dn}} or {{username}}, such as (member={{dn}})',
  NAP_OIDC_ISSUER: "the identity provider's issuer URL, https://…",
  NAP_OIDC_SCOPES: 'scopes that include openid, such as "openid profile email groups"',
};

/**
 * One schema failure in words: the variable, and what it must be (the allowed values, the shape).
 * The value itself is shown only for settings that cannot hold a credential.
 */
function problemOf(e: ErrorObject, values: Record<string, unknown>): string {
  const name = e.instancePath.slice(1) || 'environment';
  const secret = (FILE_SETTINGS as readonly string[]).includes(name);
  const given = secret || values[name] === undefined ? ':' : ` is "${String(values[name])}":`;
  if (e.keyword === 'enum') return `${name}${given} use one of ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
  const hint = PATTERN_HINTS[name];
  if (e.keyword === 'pattern' && hint !== undefined) return `${name}${given} give ${hint}`;
  return `${name} ${e.message ?? 'is invalid'}`;
}

/** A configuration problem stops the process with every problem listed. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Settings that may hold credentials: each can instead be read from the file named by
 * `<NAME>_FILE` (compose and Kubernetes secrets mounted as files), so that the value never sits in
 * the environment that child processes inherit.
 */
export const FILE_SETTINGS = [
  'NAP_SECRET_KEY',
  'NAP_ADMIN_PASSWORD',
  'NAP_MONGO_URL',
  'NAP_NATS_URL',
  'NAP_LDAP_BIND_PASSWORD',
  'NAP_RADIUS_SECRET',
  'NAP_OIDC_CLIENT_SECRET',
] as const;

export interface LoadConfigOptions {
  /** Settings that a distributed process cannot do without (`NAP_NATS_URL`, …). */
  require?: string[];
}

/**
 * How the environment is validated: every error, text coerced to the schema's types. The schema is
 * the platform's own, so it is not checked against JSON Schema's meta-schema (compiling that cost
 * each start ~40 ms); Ajv's strict mode still refuses an unknown keyword in it.
 */
const ENV_VALIDATOR_OPTIONS: ValidatorOptions = { ajv: { allErrors: true, coerceTypes: true, validateSchema: false }, formats: false };

/**
 * The schemas whose validators this package's build generates (`npm run build`: contracts'
 * `scripts/precompile-validators.mjs --manifest dist/config.js`): the environment's.
 */
export const PRECOMPILED_SCHEMAS: readonly { schema: object; options: ValidatorOptions }[] = [
  { schema: ENV_SCHEMA, options: ENV_VALIDATOR_OPTIONS },
];

/** Where the build writes them: `dist/precompiled`, found alike from `src/` (jest) and `dist/`. */
const PRECOMPILED_DIR = path.resolve(__dirname, '..', 'dist', 'precompiled');

let compiledEnv: ValidateFunction | undefined;

/**
 * The validator of the environment, made once per process: every process reads its configuration
 * at start, and tests build many. The one generated at build time when it is of this very schema,
 * else compiled now (a source changed since the build, or no build yet).
 */
function envValidator(): ValidateFunction {
  compiledEnv ??=
    precompiledValidator(PRECOMPILED_DIR, ENV_SCHEMA, ENV_VALIDATOR_OPTIONS) ??
    new Ajv({ ...ENV_VALIDATOR_OPTIONS.ajv }).compile(ENV_SCHEMA);
  return compiledEnv;
}

/**
 * Parses `NAP_*` variables once against a schema. Without `NAP_SECRET_KEY` a key is generated once
 * and kept in `<dataDir>/secret.key` (mode 0600), which suits a single machine.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, options: LoadConfigOptions = {}): RuntimeConfig {
  const values: Record<string, unknown> = {};
  for (const key of Object.keys(ENV_SCHEMA.properties)) {
    const raw = env[key];
    if (raw !== undefined && raw !== '') values[key] = raw;
  }
  const problems: string[] = [];
  for (const key of FILE_SETTINGS) {
    const file = env[`${key}_FILE`];
    if (file === undefined || file === '') continue;
    if (values[key] !== undefined) {
      problems.push(`${key} and ${key}_FILE are both set: keep one`);
      continue;
    }
    try {
      // a trailing newline is how editors and `echo` leave a secret file; it is not part of the value
      const content = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
      if (content !== '') values[key] = content;
      else problems.push(`${key}_FILE names an empty file: ${file}`);
    } catch (err) {
      problems.push(`${key}_FILE cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'}): ${file}`);
    }
  }
  const validate = envValidator();
  if (!validate(values)) {
    for (const e of validate.errors ?? []) problems.push(problemOf(e, values));
  }
  for (const key of options.require ?? []) if (values[key] === undefined) problems.push(`${key} is required`);
  const allowedOrigins = originsOf(values.NAP_ALLOWED_ORIGINS, problems);
  if (problems.length > 0) throw new ConfigError(problems);
  const ldap = ldapOf(values, problems);
  const radius = radiusOf(values, problems);
  const oidc = oidcOf(values, problems);
  const saml = samlOf(values, problems);
  if ((oidc !== undefined || saml !== undefined) && values.NAP_PUBLIC_URL === undefined)
    problems.push(
      `NAP_PUBLIC_URL is required with ${oidc !== undefined ? 'NAP_OIDC_ISSUER' : 'NAP_SAML_IDP_METADATA'}: the identity provider sends browsers back to <NAP_PUBLIC_URL>/sso/…`,
    );
  if (problems.length > 0) throw new ConfigError(problems);
  const dataDir = path.resolve(String(values.NAP_DATA_DIR ?? './data'));
  const config: RuntimeConfig = {
    dataDir,
    dataMinFreeBytes:
      values.NAP_DATA_MIN_FREE_MB === undefined ? DEFAULT_MIN_FREE_BYTES : Number(values.NAP_DATA_MIN_FREE_MB) * 1024 * 1024,
    host: String(values.NAP_HOST ?? '127.0.0.1'),
    port: Number(values.NAP_PORT ?? 3000),
    logLevel: String(values.NAP_LOG_LEVEL ?? 'info'),
    adminUsername: String(values.NAP_ADMIN_USERNAME ?? 'admin'),
    adminPasswordReset: values.NAP_ADMIN_PASSWORD_RESET === 'true',
    secretKey: values.NAP_SECRET_KEY === undefined ? localSecret(dataDir) : String(values.NAP_SECRET_KEY),
    tokenTtlSeconds: Number(values.NAP_TOKEN_TTL_SECONDS ?? 43_200),
    bodyLimitBytes: Number(values.NAP_BODY_LIMIT_BYTES ?? BODY_LIMITS.default.bytes),
    documentBodyLimitBytes: Number(values.NAP_DOCUMENT_BODY_LIMIT_BYTES ?? BODY_LIMITS.document.bytes),
    timeScale: Number(values.NAP_TIME_SCALE ?? 1),
    maxJsonDepth: Number(values.NAP_MAX_JSON_DEPTH ?? DEFAULT_MAX_JSON_DEPTH),
    maxParamLength: Number(values.NAP_MAX_PARAM_LENGTH ?? DEFAULT_MAX_PARAM_LENGTH),
    headersTimeoutMs: Number(values.NAP_HEADERS_TIMEOUT_MS ?? 10_000),
    requestTimeoutMs: Number(values.NAP_REQUEST_TIMEOUT_MS ?? 30_000),
    allowedOrigins,
    trustProxy: ['1', 'true', 'yes'].includes(String(values.NAP_TRUST_PROXY ?? 'false')),
    streamsPerCaller: Number(values.NAP_STREAMS_PER_CALLER ?? 100),
    auditTrail: values.NAP_AUDIT !== 'off',
    memoryEventsMaxBytes: Number(values.NAP_MEMORY_EVENTS_MAX_BYTES ?? DEFAULT_MEMORY_EVENTS_MAX_BYTES),
  };
  if (values.NAP_PUBLIC_URL !== undefined) config.publicUrl = new URL(String(values.NAP_PUBLIC_URL)).origin;
  if (values.NAP_CONSOLE_DIR !== undefined) config.consoleDir = path.resolve(String(values.NAP_CONSOLE_DIR));
  if (values.NAP_HEALTH_PORT !== undefined) config.healthPort = Number(values.NAP_HEALTH_PORT);
  if ((values.NAP_TLS_CERT_FILE === undefined) !== (values.NAP_TLS_KEY_FILE === undefined))
    problems.push('NAP_TLS_CERT_FILE and NAP_TLS_KEY_FILE go together: set both to serve https, or neither');
  else if (values.NAP_TLS_CERT_FILE !== undefined)
    config.tls = { certFile: path.resolve(String(values.NAP_TLS_CERT_FILE)), keyFile: path.resolve(String(values.NAP_TLS_KEY_FILE)) };
  if (config.headersTimeoutMs > config.requestTimeoutMs) problems.push('NAP_HEADERS_TIMEOUT_MS must not exceed NAP_REQUEST_TIMEOUT_MS');
  if (config.adminPasswordReset && values.NAP_ADMIN_PASSWORD === undefined)
    problems.push('NAP_ADMIN_PASSWORD_RESET=true needs NAP_ADMIN_PASSWORD: the password to apply');
  if (problems.length > 0) throw new ConfigError(problems);
  if (values.NAP_NATS_URL !== undefined) config.natsUrl = String(values.NAP_NATS_URL);
  if (values.NAP_MONGO_URL !== undefined) config.mongoUrl = String(values.NAP_MONGO_URL);
  if (values.NAP_ADMIN_PASSWORD !== undefined) config.adminPassword = String(values.NAP_ADMIN_PASSWORD);
  if (ldap !== undefined) config.ldap = ldap;
  if (radius !== undefined) config.radius = radius;
  if (oidc !== undefined) config.oidc = oidc;
  if (saml !== undefined) config.saml = saml;
  return config;
}

const TRUE_WORDS = ['1', 'true', 'yes'];

/** A comma-separated list, trimmed, empty parts left out. */
function listOf(value: unknown): string[] {
  return value === undefined
    ? []
    : String(value)
        .split(',')
        .map((part) => part.trim())
        .filter((part) => part !== '');
}

/** Every server's timeout added up must stay within a sign-in's own deadline (9 s of the login's 10). */
function withinSignInBudget(name: string, timeoutMs: number | undefined, servers: number, problems: string[]): void {
  if (timeoutMs !== undefined && timeoutMs * servers > 9000)
    problems.push(`${name} is ${timeoutMs} ms for each of ${servers} servers; together they must stay within 9000 ms`);
}

/** The LDAP directory of `NAP_LDAP_*`, when `NAP_LDAP_URL` is set; a setting without it, or a part missing, is a problem named here. */
function ldapOf(values: Record<string, unknown>, problems: string[]): LdapProviderConfig | undefined {
  const given = Object.keys(values).filter((key) => key.startsWith('NAP_LDAP_'));
  if (values.NAP_LDAP_URL === undefined) {
    if (given.length > 0) problems.push(`${given.join(', ')} ${given.length === 1 ? 'is' : 'are'} set but NAP_LDAP_URL is not`);
    return undefined;
  }
  const url = String(values.NAP_LDAP_URL).trim();
  for (const part of url.split(/[\s,]+/)) {
    if (!/^ldaps?:\/\/[^/?#]+\/?$/.test(part))
      problems.push(`NAP_LDAP_URL holds "${part}", which is not an LDAP server URL such as ldaps://dc1.example.net:636`);
  }
  if (values.NAP_LDAP_USER_BASE === undefined) problems.push('NAP_LDAP_USER_BASE is required with NAP_LDAP_URL (where users are searched)');
  if ((values.NAP_LDAP_BIND_DN === undefined) !== (values.NAP_LDAP_BIND_PASSWORD === undefined))
    problems.push('NAP_LDAP_BIND_DN and NAP_LDAP_BIND_PASSWORD (or NAP_LDAP_BIND_PASSWORD_FILE) go together');
  const caFile = values.NAP_LDAP_CA_FILE === undefined ? undefined : path.resolve(String(values.NAP_LDAP_CA_FILE));
  if (caFile !== undefined && !existsSync(caFile)) problems.push(`NAP_LDAP_CA_FILE names a file that does not exist: ${caFile}`);
  const nested = TRUE_WORDS.includes(String(values.NAP_LDAP_NESTED_GROUPS ?? 'false'));
  if (nested && values.NAP_LDAP_GROUP_BASE === undefined)
    problems.push('NAP_LDAP_NESTED_GROUPS needs NAP_LDAP_GROUP_BASE (nested groups are searched)');
  const config: LdapProviderConfig = { type: 'ldap', url, userBase: String(values.NAP_LDAP_USER_BASE ?? '') };
  if (values.NAP_LDAP_BIND_DN !== undefined) config.bindDN = String(values.NAP_LDAP_BIND_DN);
  if (values.NAP_LDAP_BIND_PASSWORD !== undefined) config.bindPassword = String(values.NAP_LDAP_BIND_PASSWORD);
  if (values.NAP_LDAP_USER_FILTER !== undefined) config.userFilter = String(values.NAP_LDAP_USER_FILTER);
  if (values.NAP_LDAP_GROUP_BASE !== undefined) config.groupBase = String(values.NAP_LDAP_GROUP_BASE);
  if (values.NAP_LDAP_GROUP_FILTER !== undefined) config.groupFilter = String(values.NAP_LDAP_GROUP_FILTER);
  if (nested) config.nestedGroups = true;
  const adminGroups = listOf(values.NAP_LDAP_ADMIN_GROUPS);
  if (adminGroups.length > 0) config.adminGroups = adminGroups;
  if (caFile !== undefined) config.caFile = caFile;
  if (TRUE_WORDS.includes(String(values.NAP_LDAP_STARTTLS ?? 'false'))) {
    if (url.startsWith('ldaps://')) problems.push('NAP_LDAP_STARTTLS is set but NAP_LDAP_URL is ldaps:// (TLS already): keep one');
    config.startTls = true;
  }
  if (values.NAP_LDAP_TIMEOUT_MS !== undefined) config.timeoutMs = Number(values.NAP_LDAP_TIMEOUT_MS);
  withinSignInBudget('NAP_LDAP_TIMEOUT_MS', config.timeoutMs, url.split(/[\s,]+/).length, problems);
  return config;
}

/** The RADIUS servers of `NAP_RADIUS_*`, when `NAP_RADIUS_SERVERS` is set. */
function radiusOf(values: Record<string, unknown>, problems: string[]): RadiusProviderConfig | undefined {
  const given = Object.keys(values).filter((key) => key.startsWith('NAP_RADIUS_'));
  if (values.NAP_RADIUS_SERVERS === undefined) {
    if (given.length > 0) problems.push(`${given.join(', ')} ${given.length === 1 ? 'is' : 'are'} set but NAP_RADIUS_SERVERS is not`);
    return undefined;
  }
  const servers = listOf(values.NAP_RADIUS_SERVERS);
  if (servers.length === 0 || servers.length > 4)
    problems.push('NAP_RADIUS_SERVERS must name one to four servers (host:port, comma-separated)');
  for (const server of servers) {
    const match = /^(\[[0-9a-fA-F:.]+\]|[^:\s]+)(?::(\d{1,5}))?$/.exec(server);
    if (!match || (match[2] !== undefined && (Number(match[2]) < 1 || Number(match[2]) > 65535)))
      problems.push(`NAP_RADIUS_SERVERS holds "${server}", which is not host:port (port 1..65535)`);
  }
  if (values.NAP_RADIUS_SECRET === undefined)
    problems.push('NAP_RADIUS_SECRET (or NAP_RADIUS_SECRET_FILE) is required with NAP_RADIUS_SERVERS');
  const config: RadiusProviderConfig = { type: 'radius', servers, secret: String(values.NAP_RADIUS_SECRET ?? '') };
  if (values.NAP_RADIUS_TIMEOUT_MS !== undefined) config.timeoutMs = Number(values.NAP_RADIUS_TIMEOUT_MS);
  withinSignInBudget('NAP_RADIUS_TIMEOUT_MS', config.timeoutMs, servers.length, problems);
  const adminGroups = listOf(values.NAP_RADIUS_ADMIN_GROUPS);
  if (adminGroups.length > 0) config.adminGroups = adminGroups;
  return config;
}

/** Settings of one method given without the one that turns it on: a problem naming them. */
function withoutMain(values: Record<string, unknown>, prefix: string, main: string, problems: string[]): boolean {
  if (values[main] !== undefined) return false;
  const given = Object.keys(values).filter((key) => key.startsWith(prefix));
  if (given.length > 0) problems.push(`${given.join(', ')} ${given.length === 1 ? 'is' : 'are'} set but ${main} is not`);
  return true;
}

/** An http URL is for an identity provider on this machine only (tests, a local IdP); https otherwise. */
function identityProviderUrlProblem(name: string, text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `${name} holds "${text}", which is not a URL`;
  }
  const loopback = ['localhost', '[::1]'].includes(url.hostname) || /^127(\.\d{1,3}){3}$/.test(url.hostname);
  if (url.protocol === 'https:' || (url.protocol === 'http:' && loopback)) return undefined;
  return `${name} is "${text}": an identity provider is reached over https (http only on a loopback address)`;
}

/** The OpenID provider of `NAP_OIDC_*`, when `NAP_OIDC_ISSUER` is set. */
function oidcOf(values: Record<string, unknown>, problems: string[]): OidcProviderConfig | undefined {
  if (withoutMain(values, 'NAP_OIDC_', 'NAP_OIDC_ISSUER', problems)) return undefined;
  const issuer = String(values.NAP_OIDC_ISSUER).trim();
  const problem = identityProviderUrlProblem('NAP_OIDC_ISSUER', issuer);
  if (problem !== undefined) problems.push(problem);
  if (values.NAP_OIDC_CLIENT_ID === undefined)
    problems.push('NAP_OIDC_CLIENT_ID is required with NAP_OIDC_ISSUER (the client id NAP has at the provider)');
  const config: OidcProviderConfig = { type: 'oidc', issuer, clientId: String(values.NAP_OIDC_CLIENT_ID ?? '') };
  if (values.NAP_OIDC_CLIENT_SECRET !== undefined) config.clientSecret = String(values.NAP_OIDC_CLIENT_SECRET);
  if (values.NAP_OIDC_SCOPES !== undefined)
    config.scopes = String(values.NAP_OIDC_SCOPES)
      .split(/[\s,]+/)
      .filter((s) => s !== '');
  if (values.NAP_OIDC_GROUPS_CLAIM !== undefined) config.groupsClaim = String(values.NAP_OIDC_GROUPS_CLAIM);
  if (values.NAP_OIDC_USERNAME_CLAIM !== undefined) config.usernameClaim = String(values.NAP_OIDC_USERNAME_CLAIM);
  if (values.NAP_OIDC_LABEL !== undefined) config.label = String(values.NAP_OIDC_LABEL);
  const adminGroups = listOf(values.NAP_OIDC_ADMIN_GROUPS);
  if (adminGroups.length > 0) config.adminGroups = adminGroups;
  return config;
}

/** The SAML identity provider of `NAP_SAML_*`, when `NAP_SAML_IDP_METADATA` is set (a URL or a file). */
function samlOf(values: Record<string, unknown>, problems: string[]): SamlProviderConfig | undefined {
  if (withoutMain(values, 'NAP_SAML_', 'NAP_SAML_IDP_METADATA', problems)) return undefined;
  let idpMetadata = String(values.NAP_SAML_IDP_METADATA).trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(idpMetadata)) {
    const problem = identityProviderUrlProblem('NAP_SAML_IDP_METADATA', idpMetadata);
    if (problem !== undefined) problems.push(problem);
  } else {
    idpMetadata = path.resolve(idpMetadata);
    if (!existsSync(idpMetadata)) problems.push(`NAP_SAML_IDP_METADATA names neither a URL nor a file that exists: ${idpMetadata}`);
  }
  const config: SamlProviderConfig = { type: 'saml', idpMetadata };
  if (values.NAP_SAML_SP_ENTITY_ID !== undefined) config.spEntityId = String(values.NAP_SAML_SP_ENTITY_ID);
  if (values.NAP_SAML_GROUPS_ATTRIBUTE !== undefined) config.groupsAttribute = String(values.NAP_SAML_GROUPS_ATTRIBUTE);
  if (values.NAP_SAML_USERNAME_ATTRIBUTE !== undefined) config.usernameAttribute = String(values.NAP_SAML_USERNAME_ATTRIBUTE);
  if (values.NAP_SAML_LABEL !== undefined) config.label = String(values.NAP_SAML_LABEL);
  const adminGroups = listOf(values.NAP_SAML_ADMIN_GROUPS);
  if (adminGroups.length > 0) config.adminGroups = adminGroups;
  return config;
}

/**
 * The origins of `NAP_ALLOWED_ORIGINS` as browsers send them in `Origin` (`https://ops.example.net`,
 * no path, default port left out); a value that is not an http(s) origin is a problem named here.
 */
function originsOf(value: unknown, problems: string[]): string[] {
  if (value === undefined) return [];
  const origins: string[] = [];
  for (const part of String(value).split(',')) {
    const text = part.trim();
    if (text === '') continue;
    let url: URL | undefined;
    try {
      url = new URL(text);
    } catch {
      url = undefined;
    }
    const bare = url !== undefined && url.pathname === '/' && url.search === '' && url.hash === '' && url.username === '';
    if (url === undefined || !['http:', 'https:'].includes(url.protocol) || !bare) {
      problems.push(
        `NAP_ALLOWED_ORIGINS holds "${text}", which is not an origin such as https://ops.example.net (scheme, host, port; no path)`,
      );
    } else {
      origins.push(url.origin);
    }
  }
  return origins;
}

function localSecret(dataDir: string): string {
  const file = path.join(dataDir, 'secret.key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  try {
    writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    // another process of the same data directory wrote it first: use theirs
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(file, 'utf8').trim();
    throw err;
  }
  return secret;
}
