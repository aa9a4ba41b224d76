import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The repository root, where `npm run build` leaves the platform's and the console's builds. */
export const ROOT = path.resolve(__dirname, '../../..');
const ENTRY = path.join(ROOT, 'deploy/standalone/dist/main.js');
const CONSOLE_INDEX = path.join(ROOT, 'console/dist/index.html');

export const ADMIN = { username: 'admin', password: 'console-admin-password' } as const;

/** A platform started as `npm start` starts it: a black box reached over HTTP. */
export interface RunningPlatform {
  url: string;
  dataDir: string;
  /** A request with the admin's Bearer token (or the given one); the parsed answer. */
  api<T = unknown>(method: string, route: string, body?: unknown, token?: string): Promise<T>;
  /** Logs in through the interface and returns the token (for setting up data, never for the browser). */
  login(username: string, password: string): Promise<string>;
  adminToken: string;
  output(): string;
  /** SIGTERM and wait; the data directory is removed unless it was given. */
  stop(): Promise<void>;
  /** Stops the process and starts it again on the same port with the same data (sessions, jobs). */
  restart(): Promise<RunningPlatform>;
}

/**
 * Starts `node deploy/standalone/dist/main.js` on a free port with a fresh data directory and a
 * known admin password; resolves once it says where it listens. Fails naming `npm run build` when
 * the platform or the console is not built.
 */
export async function startPlatform(
  env: Record<string, string> = {},
  options: { dataDir?: string; port?: number; ownsData?: boolean } = {},
): Promise<RunningPlatform> {
  for (const file of [ENTRY, CONSOLE_INDEX]) {
    if (!existsSync(file))
      throw new Error(`${path.relative(ROOT, file)} is missing: run \`npm run build\` at the repository root first (npm test does)`);
  }
  const dataDir = options.dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'nap-console-'));
  const ownsData = options.ownsData ?? options.dataDir === undefined;
  const child: ChildProcess = spawn(process.execPath, [ENTRY], {
    env: {
      ...process.env,
      NAP_PORT: String(options.port ?? 0),
      NAP_HOST: '127.0.0.1',
      NAP_DATA_DIR: dataDir,
      NAP_ADMIN_PASSWORD: ADMIN.password,
      NAP_SECRET_KEY: 'console-test-secret-key-0123456789',
      NAP_LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`The platform did not start within 30 s:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const found = /NAP is listening on (http:\/\/[^\s"]+?)(?= |\(|")/.exec(output);
      if (found?.[1]) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`The platform exited with ${String(code)} before it listened:\n${output}`));
    });
  });

  async function call<T>(method: string, route: string, body: unknown, token: string | undefined): Promise<T> {
    const res = await fetch(`${url}${route}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${route} answered ${res.status}: ${text.slice(0, 500)}`);
    return ((res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text) as T;
  }
  async function halt(): Promise<void> {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    await exited;
  }
  const login = (username: string, password: string) => call<string>('POST', '/login', { user: { username, password } }, undefined);
  const adminToken = await login(ADMIN.username, ADMIN.password);
  return {
    url,
    dataDir,
    adminToken,
    api: (method, route, body, token) => call(method, route, body, token ?? adminToken),
    login,
    output: () => output,
    async stop() {
      await halt();
      if (ownsData) rmSync(dataDir, { recursive: true, force: true });
    },
    async restart() {
      await halt();
      return startPlatform(env, { dataDir, port: Number(new URL(url).port), ownsData });
    },
  };
}
