import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { DEFAULT_MAX_JSON_DEPTH, DEFAULT_MAX_PARAM_LENGTH } from '@nap/contracts';

/** Configuration of every NAP process, from `NAP_*` environment variables. */
export interface RuntimeConfig {
  /** NATS servers; unset in standalone mode, which uses the in-process bus. */
  natsUrl?: string;
  /** MongoDB URL; unset means the embedded store under `dataDir`. */
  mongoUrl?: string;
  dataDir: string;
  host: string;
  port: number;
  /** `NAP_HEALTH_PORT`: the management listener (`/health/live`, `/health/ready`, `/metrics`); none when unset. */
  healthPort?: number;
  logLevel: string;
  adminUsername: string;
  adminPassword?: string;
  /** Secret that encrypts secrets at rest (signing keys, device passwords). */
  secretKey: string;
  tokenTtlSeconds: number;
  bodyLimitBytes: number;
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
    NAP_HOST: { type: 'string', minLength: 1 },
    NAP_PORT: { type: 'integer', minimum: 0, maximum: 65535 },
    NAP_HEALTH_PORT: { type: 'integer', minimum: 0, maximum: 65535 },
    NAP_LOG_LEVEL: { enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] },
    NAP_ADMIN_USERNAME: { type: 'string', minLength: 1 },
    NAP_ADMIN_PASSWORD: { type: 'string', minLength: 8 },
    NAP_SECRET_KEY: { type: 'string', minLength: 16 },
    NAP_TOKEN_TTL_SECONDS: { type: 'integer', minimum: 60 },
    NAP_BODY_LIMIT_BYTES: { type: 'integer', minimum: 1024 },
    NAP_TIME_SCALE: { type: 'number', exclusiveMinimum: 0, maximum: 1_000_000 },
    NAP_MAX_JSON_DEPTH: { type: 'integer', minimum: 8, maximum: 10_000 },
    NAP_MAX_PARAM_LENGTH: { type: 'integer', minimum: 64, maximum: 1024 },
    NAP_HEADERS_TIMEOUT_MS: { type: 'integer', minimum: 1000 },
    NAP_REQUEST_TIMEOUT_MS: { type: 'integer', minimum: 1000 },
    NAP_MEMORY_EVENTS_MAX_BYTES: { type: 'integer', minimum: 65_536 },
  },
} as const;

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
export const FILE_SETTINGS = ['NAP_SECRET_KEY', 'NAP_ADMIN_PASSWORD', 'NAP_MONGO_URL', 'NAP_NATS_URL'] as const;

export interface LoadConfigOptions {
  /** Settings that a distributed process cannot do without (`NAP_NATS_URL`, …). */
  require?: string[];
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
  const ajv = new Ajv({ allErrors: true, coerceTypes: true });
  const validate = ajv.compile(ENV_SCHEMA);
  if (!validate(values)) {
    for (const e of validate.errors ?? []) problems.push(`${e.instancePath.slice(1) || 'environment'} ${e.message ?? 'is invalid'}`);
  }
  for (const key of options.require ?? []) if (values[key] === undefined) problems.push(`${key} is required`);
  if (problems.length > 0) throw new ConfigError(problems);
  const dataDir = path.resolve(String(values.NAP_DATA_DIR ?? './data'));
  const config: RuntimeConfig = {
    dataDir,
    host: String(values.NAP_HOST ?? '127.0.0.1'),
    port: Number(values.NAP_PORT ?? 3000),
    logLevel: String(values.NAP_LOG_LEVEL ?? 'info'),
    adminUsername: String(values.NAP_ADMIN_USERNAME ?? 'admin'),
    secretKey: values.NAP_SECRET_KEY === undefined ? localSecret(dataDir) : String(values.NAP_SECRET_KEY),
    tokenTtlSeconds: Number(values.NAP_TOKEN_TTL_SECONDS ?? 43_200),
    bodyLimitBytes: Number(values.NAP_BODY_LIMIT_BYTES ?? 1_048_576),
    timeScale: Number(values.NAP_TIME_SCALE ?? 1),
    maxJsonDepth: Number(values.NAP_MAX_JSON_DEPTH ?? DEFAULT_MAX_JSON_DEPTH),
    maxParamLength: Number(values.NAP_MAX_PARAM_LENGTH ?? DEFAULT_MAX_PARAM_LENGTH),
    headersTimeoutMs: Number(values.NAP_HEADERS_TIMEOUT_MS ?? 10_000),
    requestTimeoutMs: Number(values.NAP_REQUEST_TIMEOUT_MS ?? 30_000),
    memoryEventsMaxBytes: Number(values.NAP_MEMORY_EVENTS_MAX_BYTES ?? DEFAULT_MEMORY_EVENTS_MAX_BYTES),
  };
  if (values.NAP_HEALTH_PORT !== undefined) config.healthPort = Number(values.NAP_HEALTH_PORT);
  if (config.headersTimeoutMs > config.requestTimeoutMs) problems.push('NAP_HEADERS_TIMEOUT_MS must not exceed NAP_REQUEST_TIMEOUT_MS');
  if (problems.length > 0) throw new ConfigError(problems);
  if (values.NAP_NATS_URL !== undefined) config.natsUrl = String(values.NAP_NATS_URL);
  if (values.NAP_MONGO_URL !== undefined) config.mongoUrl = String(values.NAP_MONGO_URL);
  if (values.NAP_ADMIN_PASSWORD !== undefined) config.adminPassword = String(values.NAP_ADMIN_PASSWORD);
  return config;
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
