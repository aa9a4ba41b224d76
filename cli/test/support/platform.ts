import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * A NAP platform for the CLI tests, started as a black box: the built standalone process on a free
 * port with a fresh data folder, ready once `GET /health/ready` says so.
 */
export const ROOT = path.resolve(__dirname, '../../..');
const MAIN = path.join(ROOT, 'deploy/standalone/dist/main.js');
export const NAP_BIN = path.join(ROOT, 'cli/bin/nap.js');

export interface Platform {
  url: string;
  port: number;
  password: string;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export function requireBuilt(): void {
  for (const file of [MAIN, path.join(ROOT, 'cli/dist/nap.js')]) {
    if (!existsSync(file)) throw new Error(`${path.relative(ROOT, file)} is missing: run \`npm run build\` at the repository root first`);
  }
}

/**
 * `env`: more of the platform's environment, for example `NAP_LDAP_*` for a directory. The platform
 * picks its own port and says which (a port found free beforehand could be taken by another suite
 * before the platform listened on it).
 */
export async function startPlatform(password = 'cli-test-password', env: NodeJS.ProcessEnv = {}): Promise<Platform> {
  requireBuilt();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nap-cli-platform-'));
  const child: ChildProcess = spawn(process.execPath, [MAIN], {
    env: {
      ...process.env,
      NAP_PORT: '0',
      NAP_HOST: '127.0.0.1',
      NAP_DATA_DIR: dataDir,
      NAP_ADMIN_PASSWORD: password,
      // info: the line that says where it listens (the rest is read and dropped)
      NAP_LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  let stdout = '';
  let url: string | undefined;
  child.stdout?.on('data', (d: Buffer) => {
    if (url !== undefined) return;
    stdout = (stdout + d.toString()).slice(-16_000);
    url = /NAP is listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1];
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) {
      rmSync(dataDir, { recursive: true, force: true });
      throw new Error(`the platform exited with ${child.exitCode}: ${stderr}`);
    }
    const ready =
      url !== undefined &&
      (await fetch(`${url}/health/ready`)
        .then((r) => r.ok)
        .catch(() => false));
    if (ready) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the platform${url === undefined ? '' : ` on ${url}`} was not ready within 60 s: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const port = Number(new URL(url as string).port);
  return {
    url: url as string,
    port,
    password,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
