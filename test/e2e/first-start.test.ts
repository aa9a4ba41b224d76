import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../support/processes';

/**
 * A newcomer's first hour with `npm start`, as the README tells it: the platform starts and says
 * where it listens; Ctrl-C in the terminal (SIGINT to npm's process group), or a signal to npm
 * alone, stops it — no process is left behind; without Python's jinja2 and textfsm it starts with
 * templates off, says so and names the one command that turns them on.
 *
 * The first test runs `npm start` whole, its `prestart` build (turbo, every package up to date
 * already) included; the others start with `--ignore-scripts`, which leaves out the `prestart`
 * build only (npm still runs `start` itself): what they check begins once that build is done, and
 * each build would cost them a turbo run.
 */

/** How long `npm start` may take to listen: the build it runs first is done already under npm test, not always by hand. */
const LISTEN_TIMEOUT_MS = 300_000;
const TEST_TIMEOUT_MS = LISTEN_TIMEOUT_MS + 60_000;

const dirs: string[] = [];

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface NpmStart {
  child: ChildProcess;
  url: string;
  output(): string;
  /** Resolves with npm's exit code (or the signal that ended it). */
  exited: Promise<number | string>;
}

/**
 * `npm start` in a process group of its own, as a terminal runs it; resolves once NAP says where it
 * listens. `build: false` leaves out the `prestart` build (`npm start --ignore-scripts`).
 */
async function npmStart(env: Record<string, string>, { build = false }: { build?: boolean } = {}): Promise<NpmStart> {
  const child = spawn('npm', build ? ['start'] : ['start', '--ignore-scripts'], {
    cwd: REPO_ROOT,
    detached: true,
    env: { ...process.env, NAP_PORT: '0', NAP_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      reject(new Error(`npm start did not say where it listens in ${LISTEN_TIMEOUT_MS} ms:\n${output}`));
    }, LISTEN_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /NAP is listening on (http:\/\/[\d.]+:\d+)/.exec(output);
      if (m?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited (${code}) before it listened:\n${output}`));
    });
  });
  return { child, url, output: () => output, exited };
}

/** True while any process of the group `pgid` is alive. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

async function groupGone(pgid: number, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (groupAlive(pgid)) {
    if (Date.now() > until) throw new Error(`processes of group ${pgid} still run ${timeoutMs} ms after the signal`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function freshDataDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'nap-first-start-'));
  dirs.push(dir);
  return dir;
}

async function refused(url: string): Promise<boolean> {
  try {
    await fetch(`${url}/health/live`, { signal: AbortSignal.timeout(2_000) });
    return false;
  } catch {
    return true;
  }
}

describe('npm start', () => {
  it(
    'stops cleanly on Ctrl-C (SIGINT to its process group), leaving no process behind',
    async () => {
      const started = await npmStart({ NAP_DATA_DIR: freshDataDir() }, { build: true });
      const pid = started.child.pid ?? 0;
      expect((await fetch(`${started.url}/health/live`)).status).toBe(200);
      process.kill(-pid, 'SIGINT');
      await started.exited;
      await groupGone(pid);
      expect(started.output()).toContain('"msg":"Stopped"');
      expect(await refused(started.url)).toBe(true);
    },
    TEST_TIMEOUT_MS,
  );

  // The tests from here on start without the build, each in a data folder and process group of its
  // own: they run side by side (most of each is waiting for a process to start or to end).
  it.concurrent.each(['SIGTERM', 'SIGINT'] as const)(
    'stops the platform when npm alone gets %s',
    async (signal) => {
      const started = await npmStart({ NAP_DATA_DIR: freshDataDir() });
      const pid = started.child.pid ?? 0;
      process.kill(pid, signal);
      await started.exited;
      await groupGone(pid);
      expect(started.output()).toContain('"msg":"Stopped"');
      expect(await refused(started.url)).toBe(true);
    },
    TEST_TIMEOUT_MS,
  );

  it.concurrent(
    'says at start that NAP_ADMIN_PASSWORD is ignored once the administrator exists, and applies it when asked to reset',
    async () => {
      const dataDir = freshDataDir();
      const login = async (url: string, password: string) =>
        (
          await fetch(`${url}/login`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ user: { username: 'admin', password } }),
          })
        ).status;
      const stop = async (started: NpmStart) => {
        process.kill(-(started.child.pid ?? 0), 'SIGINT');
        await started.exited;
        await groupGone(started.child.pid ?? 0);
      };
      const first = await npmStart({ NAP_DATA_DIR: dataDir, NAP_ADMIN_PASSWORD: 'first-password' });
      expect(first.output()).toContain('Created the first administrator account');
      await stop(first);

      const later = await npmStart({ NAP_DATA_DIR: dataDir, NAP_ADMIN_PASSWORD: 'second-password' });
      try {
        const said = later
          .output()
          .split('\n')
          .find((line) => line.includes('NAP_ADMIN_PASSWORD is ignored'));
        expect(said).toContain('the account \\"admin\\" was created on an earlier start with another password');
        expect(said).toContain('PUT /user-management/accounts/:accountId/password');
        expect(said).toContain('NAP_ADMIN_PASSWORD_RESET=true');
        expect(await login(later.url, 'second-password')).toBe(401);
        expect(await login(later.url, 'first-password')).toBe(200);
      } finally {
        await stop(later);
      }

      const reset = await npmStart({ NAP_DATA_DIR: dataDir, NAP_ADMIN_PASSWORD: 'second-password', NAP_ADMIN_PASSWORD_RESET: 'true' });
      try {
        expect(reset.output()).toContain('the password of \\"admin\\" is now NAP_ADMIN_PASSWORD');
        expect(await login(reset.url, 'second-password')).toBe(200);
        expect(await login(reset.url, 'first-password')).toBe(401);
      } finally {
        await stop(reset);
      }
    },
    3 * TEST_TIMEOUT_MS,
  );

  it.concurrent(
    'starts with templates off where Python lacks jinja2 and textfsm, saying so and naming the command that turns them on',
    async () => {
      const started = await npmStart({
        NAP_DATA_DIR: freshDataDir(),
        NAP_PYTHON: '/nonexistent/bin/python3',
        NAP_ADMIN_PASSWORD: 'first-start-pw',
      });
      const pid = started.child.pid ?? 0;
      try {
        const command = /apt-get install -y python3-jinja2 python3-textfsm/;
        const said = started
          .output()
          .split('\n')
          .find((line) => line.includes('Templates are off'));
        expect(said).toMatch(command);
        expect(said).toContain('no restart needed');
        const basic = `Basic ${Buffer.from('admin:first-start-pw').toString('base64')}`;
        const render = await fetch(`${started.url}/template_builder/parseTemplate`, {
          method: 'POST',
          headers: { authorization: basic, 'content-type': 'application/json' },
          body: JSON.stringify({ template: 'Value NAME (\\S+)\n\nStart\n  ^${NAME}\n', text: 'core-1\n' }),
        });
        expect(render.status).toBe(503);
        const body = (await render.json()) as { code: string; message: string };
        expect(body.code).toBe('TEMPLATE_RENDERER_UNAVAILABLE');
        expect(body.message).toMatch(command);
      } finally {
        process.kill(-pid, 'SIGINT');
        await started.exited;
        await groupGone(pid);
      }
    },
    TEST_TIMEOUT_MS,
  );
});
