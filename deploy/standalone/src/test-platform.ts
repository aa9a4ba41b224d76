import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Bus } from '@nap/bus';
import type { AuditRecord, ServiceName } from '@nap/contracts';
import { loadConfig } from '@nap/runtime';
import type { RuntimeConfig } from '@nap/runtime';
import { createLogger } from '@nap/telemetry';
import { startPlatform } from './platform';
import type { Platform, PlatformOptions } from './platform';

/** The administrator every test platform starts with. */
export const TEST_ADMIN = { username: 'admin', password: 'admin-password-for-tests' } as const;

/**
 * scrypt's cost (N) of the password hashes a test platform makes unless its `admin` options say
 * otherwise: a hash at the production cost (16384) takes about 50 ms of CPU, and every account
 * created, login and Basic request of a test pays it. The hashing is the same code at any cost; the
 * production cost is what the platforms tests start as processes (`npm start`'s entry) use.
 */
export const TEST_SCRYPT_COST = 1024;

export interface TestPlatform extends Platform {
  dataDir: string;
  /** Logs in and returns the token. */
  login(username?: string, password?: string): Promise<string>;
  /** fetch against the platform with a token (or none). */
  http(
    method: string,
    route: string,
    options?: { token?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<{ status: number; body: unknown; headers: Headers }>;
  /**
   * The one audit record of the request that gave `res` (found by the `x-request-id` it was
   * answered with), read with `token`; throws when there is not exactly one.
   */
  auditRecordOf(res: { headers: Headers }, token: string): Promise<AuditRecord>;
}

export interface TestPlatformOptions {
  bus?: Bus;
  config?: Partial<RuntimeConfig>;
  /** Keep the data directory (for restart tests); removed on stop otherwise. */
  dataDir?: string;
  /** Which services to run; all six by default (leave one out to see it as no replica answering). */
  services?: readonly ServiceName[];
  /** Options of the admin service (for example how often it reconciles the replicas; scrypt's cost, `TEST_SCRYPT_COST` unless given). */
  admin?: PlatformOptions['admin'];
  /** Options of the workflow service (for example how often the job retention runs). */
  workflow?: PlatformOptions['workflow'];
  /** Options of the gateway (for example how long it remembers Basic credentials). */
  gateway?: PlatformOptions['gateway'];
}

/**
 * The whole platform in this process for tests: `startPlatform` on a free port with a fresh data
 * directory (removed on stop unless `dataDir` was given), the known administrator `TEST_ADMIN`, a
 * silent logger (`NAP_LOG_LEVEL` to hear it), and an HTTP client with `login()`. It lives beside
 * `startPlatform` because it composes every service as `npm start` does; it needs no test runner.
 */
export async function startTestPlatform(options: TestPlatformOptions = {}): Promise<TestPlatform> {
  const dataDir = options.dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'nap-test-'));
  const config: RuntimeConfig = {
    ...loadConfig({
      NAP_DATA_DIR: dataDir,
      NAP_PORT: '0',
      NAP_ADMIN_PASSWORD: TEST_ADMIN.password,
      NAP_SECRET_KEY: 'test-secret-key-of-32-characters',
    }),
    logLevel: process.env.NAP_LOG_LEVEL ?? 'silent',
    ...options.config,
  };
  const logger = createLogger({ name: 'nap-test', level: config.logLevel, destination: process.stderr });
  const platform = await startPlatform({
    config,
    logger,
    ...(options.bus ? { bus: options.bus } : {}),
    ...(options.services ? { services: options.services } : {}),
    admin: { scryptCost: TEST_SCRYPT_COST, ...options.admin },
    ...(options.workflow ? { workflow: options.workflow } : {}),
    ...(options.gateway ? { gateway: options.gateway } : {}),
  });
  const http: TestPlatform['http'] = async (method, route, opts = {}) => {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${platform.url}${route}`, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
    return { status: res.status, body: parsed, headers: res.headers };
  };
  return {
    ...platform,
    dataDir,
    http,
    async auditRecordOf(res, token) {
      const requestId = res.headers.get('x-request-id') ?? '';
      const found = await http('GET', `/audit?equals[requestId]=${encodeURIComponent(requestId)}`, { token });
      if (found.status !== 200) throw new Error(`GET /audit: ${found.status} ${JSON.stringify(found.body)}`);
      const { results } = found.body as { results: AuditRecord[] };
      if (results.length !== 1) throw new Error(`${results.length} audit records for request ${requestId}`);
      return results[0] as AuditRecord;
    },
    async login(username: string = TEST_ADMIN.username, password: string = TEST_ADMIN.password) {
      const res = await http('POST', '/login', { body: { user: { username, password } } });
      if (res.status !== 200 || typeof res.body !== 'string')
        throw new Error(`Login of ${username} failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    },
    async stop() {
      await platform.stop();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
