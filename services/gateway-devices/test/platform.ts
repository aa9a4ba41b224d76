import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { createBusClient } from '@nap/bus';
import type { Caller } from '@nap/contracts';
import { loadConfig } from '@nap/runtime';
import { startPlatform } from '@nap/standalone';
import type { Platform } from '@nap/standalone';
import type { Store } from '@nap/store';
import { createLogger } from '@nap/telemetry';
import { GATEWAY_FILE_DIRS, GATEWAY_INVENTORY_FILE, GATEWAY_SSH_KEY_DIR, gatewayFileLocations } from '../src/config';

const ADMIN_PASSWORD = 'gateway-devices-admin-password';
/** The secret key of the test platforms; tests check nothing sealed with it leaks. */
export const TEST_SECRET_KEY = 'gateway-devices-test-secret-key-32ch';

/** The platform with the admin, gateway-devices and studio (device templates render there) services, every log line kept for inspection. */
export interface GatewayPlatform {
  platform: Platform;
  token: string;
  dataDir: string;
  /** Directories of the runners (scripts, playbooks, …) under the data dir. */
  dirs: Record<'playbooks' | 'modules' | 'runnerModules' | 'roles' | 'collections' | 'scripts' | 'iac', string>;
  inventoryFile: string;
  /** The key directory (NAP_SSH_KEY_DIR) as the platform was started with it. */
  sshKeyDir: string;
  /** The gateway-devices store, to look at what is stored. */
  store: Store;
  /** Every log line written so far (JSON text). */
  logs(): string;
  http(method: string, route: string, body?: unknown, token?: string): Promise<{ status: number; body: unknown }>;
  /** Calls a catalog operation over the bus as the admin (bus-only operations). */
  call<T = unknown>(operation: string, body: unknown): Promise<T>;
  /** Like {@link call}, answering the AppError instead of throwing it. */
  callError(operation: string, body: unknown): Promise<{ code: string; status: number; message: string; details?: unknown }>;
  stop(): Promise<void>;
}

const GW_ENV = [...GATEWAY_FILE_DIRS.map((d) => d.variable), GATEWAY_INVENTORY_FILE.variable, GATEWAY_SSH_KEY_DIR.variable];

/**
 * Starts admin + gateway-devices + the HTTP gateway on a free port with a fresh data dir. `env`
 * sets `NAP_GW_*` settings for this platform only (they are read at service start, then restored).
 */
export async function startGatewayPlatform(env: Record<string, string> = {}): Promise<GatewayPlatform> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nap-gw-test-'));
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  const logger = createLogger({ name: 'nap-gw-test', level: 'debug', destination: sink });
  const config = {
    ...loadConfig({ NAP_DATA_DIR: dataDir, NAP_PORT: '0', NAP_ADMIN_PASSWORD: ADMIN_PASSWORD, NAP_SECRET_KEY: TEST_SECRET_KEY }),
    logLevel: 'debug',
  };
  const saved: Record<string, string | undefined> = {};
  for (const key of [...GW_ENV, ...Object.keys(env)]) saved[key] = process.env[key];
  for (const key of GW_ENV) delete process.env[key];
  Object.assign(process.env, env);
  let platform: Platform;
  try {
    platform = await startPlatform({ config, logger, services: ['admin', 'gateway-devices', 'studio'] });
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
  const http: GatewayPlatform['http'] = async (method, route, body, token) => {
    const headers: Record<string, string> = {};
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${platform.url}${route}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await res.text();
    return {
      status: res.status,
      body: (res.headers.get('content-type') ?? '').includes('json') && text !== '' ? (JSON.parse(text) as unknown) : text,
    };
  };
  const login = await http('POST', '/login', { user: { username: 'admin', password: ADMIN_PASSWORD } });
  if (login.status !== 200 || typeof login.body !== 'string')
    throw new Error(`login failed: ${login.status} ${JSON.stringify(login.body)}`);
  const token = login.body;
  const client = createBusClient({ bus: platform.bus });
  const caller: Caller = { id: 'test-admin', username: 'admin', roles: ['admin'], groups: [] };
  const store = platform.stores.get('gateway-devices');
  if (store === undefined) throw new Error('no gateway-devices store');
  return {
    platform,
    token,
    dataDir,
    store,
    ...gatewayFileLocations(dataDir, env),
    sshKeyDir: env[GATEWAY_SSH_KEY_DIR.variable] ?? path.join(dataDir, 'gateway', GATEWAY_SSH_KEY_DIR.name),
    logs: () => lines.join(''),
    http: (method, route, body, t = token) => http(method, route, body, t),
    // Tests name operations at run time and read answers as the shapes they assert: the untyped door.
    call: async <T>(operation: string, body: unknown) =>
      (await client.callDynamic(`gateway-devices.${operation}`, { body }, { caller })).body as T,
    callError: async (operation, body) => {
      try {
        await client.callDynamic(`gateway-devices.${operation}`, { body }, { caller });
      } catch (err) {
        const e = err as { code: string; status: number; message: string; details?: unknown };
        return { code: e.code, status: e.status, message: e.message, details: e.details };
      }
      throw new Error(`${operation} succeeded where an error was expected`);
    },
    async stop() {
      await platform.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
