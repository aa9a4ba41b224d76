import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NAP_BIN } from './platform';

/** The outcome of one `nap` process. */
export interface NapResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (for -o json). */
  json<T = unknown>(): T;
}

/** A home of its own for a test file: HOME, XDG folders, the config files. */
export interface NapHome {
  home: string;
  env: NodeJS.ProcessEnv;
  writeIpctlConfig(text: string): void;
  writeNapConfig(text: string): void;
}

export function createHome(): NapHome {
  const home = mkdtempSync(path.join(os.tmpdir(), 'nap-cli-home-'));
  const env: NodeJS.ProcessEnv = {
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    PATH: process.env.PATH,
    LANG: 'C.UTF-8',
  };
  return {
    home,
    env,
    writeIpctlConfig(text) {
      mkdirSync(path.join(home, '.platform.d'), { recursive: true });
      writeFileSync(path.join(home, '.platform.d', 'config'), text);
    },
    writeNapConfig(text) {
      mkdirSync(path.join(home, '.config', 'nap'), { recursive: true });
      writeFileSync(path.join(home, '.config', 'nap', 'config'), text);
    },
  };
}

/** Runs the built `nap` bin with `args`; never throws on a non-zero exit. */
export function nap(
  args: readonly string[],
  opts: { env: NodeJS.ProcessEnv; cwd?: string; input?: string; timeoutMs?: number },
): Promise<NapResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [NAP_BIN, ...args], {
      env: opts.env,
      cwd: opts.cwd ?? os.tmpdir(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({
        code,
        stdout,
        stderr,
        json<T>() {
          try {
            return JSON.parse(stdout) as T;
          } catch {
            throw new Error(`nap ${args.join(' ')} printed no JSON (exit ${code}): ${stdout}${stderr}`);
          }
        },
      });
    });
    child.stdin.end(opts.input ?? '');
  });
}

/** The profile section of a platform, as ipctl writes it. */
export function profileSection(name: string, port: number, password: string, extra = ''): string {
  return `[profile ${name}]\nhost = 127.0.0.1\nport = ${port}\nuse_tls = false\nusername = admin\npassword = ${password}\n${extra}`;
}

export const FIXTURES = path.resolve(__dirname, '../fixtures');
