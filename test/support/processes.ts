import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { waitForOutput } from '@nap/testing';

export const REPO_ROOT = path.resolve(__dirname, '../..');

/** A NAP process started from its built entry point. */
export interface NapProcess {
  child: ChildProcess;
  output(): string;
  /** SIGTERM and wait for the exit. */
  stop(): Promise<number | null>;
  /** SIGKILL, no clean-up. */
  kill(): Promise<void>;
}

/**
 * Starts `node <entry>` (a built `dist/main.js`) with the given environment; resolves once `ready`
 * matches its output. Fails naming `npm run build` when the entry is missing.
 */
export async function startNapProcess(
  entry: string,
  env: Record<string, string>,
  ready: RegExp,
  timeoutMs = 20_000,
  /** A command that runs node in turn (`unshare …`), ending with the arguments before node's. */
  prefix: string[] = [],
): Promise<NapProcess> {
  const file = path.join(REPO_ROOT, entry);
  if (!existsSync(file)) throw new Error(`${entry} is missing: run \`npm run build\` first (npm test does)`);
  const [command = process.execPath, ...args] = [...prefix, process.execPath, file];
  const child = spawn(command, args, {
    env: { ...process.env, NAP_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const keep = (chunk: Buffer) => (output += chunk.toString());
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  await waitForOutput(child, ready, { what: entry, timeoutMs, output: () => output });
  return {
    child,
    output: () => output,
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/**
 * The environment of a NAP process of a distributed test: the nats-server, the data directory the
 * processes share, the first administrator's password, a fixed secret key and a free port, with
 * `extra` settings laid over them.
 */
export function distributedEnv(
  natsUrl: string,
  dataDir: string,
  adminPassword: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    NAP_NATS_URL: natsUrl,
    NAP_DATA_DIR: dataDir,
    NAP_ADMIN_PASSWORD: adminPassword,
    NAP_SECRET_KEY: 'e2e-secret-key-of-32-characters!',
    NAP_PORT: '0',
    ...extra,
  };
}

/** The URL a gateway process logged when it began listening. */
export function gatewayUrl(gateway: NapProcess): string {
  const match = /"url":"(https?:\/\/[^"]+)"/.exec(gateway.output());
  if (!match?.[1]) throw new Error(`The gateway did not log its url:\n${gateway.output()}`);
  return match[1];
}

/**
 * The standalone platform as the README starts it (`npm start`'s entry), on a free port with its
 * own data dir and the given admin password; answers the process and the URL it listens on.
 */
export async function startStandaloneAsDocumented(
  dataDir: string,
  adminPassword: string,
  /** Further settings, and a command that runs node in turn (see {@link startNapProcess}). */
  options: { env?: Record<string, string>; prefix?: string[] } = {},
): Promise<{ nap: NapProcess; url: string }> {
  const nap = await startNapProcess(
    'deploy/standalone/dist/main.js',
    { NAP_PORT: '0', NAP_DATA_DIR: dataDir, NAP_ADMIN_PASSWORD: adminPassword, NAP_LOG_LEVEL: 'debug', ...options.env },
    /NAP is listening on http:\/\/[\d.]+:\d+/,
    60_000,
    options.prefix,
  );
  const url = /NAP is listening on (http:\/\/[\d.]+:\d+)/.exec(nap.output())?.[1];
  if (url === undefined) throw new Error(`The platform did not say where it listens:\n${nap.output()}`);
  return { nap, url };
}

/** `nap-data` as a person runs it (the bin npm links): answers its exit code and its output, stdout and stderr together. */
export function runNapData(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, 'deploy/standalone/bin/nap-data.js'), ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => resolve({ code, out }));
  });
}
