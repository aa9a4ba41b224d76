/**
 * Child processes of tests (servers, device peers): tracked so that none outlives the test process,
 * stopped gracefully, waited for with a bound.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { accessSync, constants as fsConstants } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { connect, createServer } from 'node:net';

/** Every child still running, killed when the test process exits so no server outlives its test. */
const running = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of running) child.kill('SIGKILL');
  });
}

/** True when `path` is a file this process may execute. */
export function isExecutable(path: string): boolean {
  try {
    accessSync(path, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Spawns a child that is killed when this process exits. */
export function spawnTracked(command: string, args: readonly string[], options: SpawnOptions = {}): ChildProcess {
  installExitHook();
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  running.add(child);
  child.once('exit', () => running.delete(child));
  // Drain the pipes so a chatty child never blocks on a full pipe.
  child.stdout?.resume();
  child.stderr?.resume();
  return child;
}

/** True while the child has neither exited nor been killed by a signal. */
export function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** Stops a child: SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited. */
export async function stopChild(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (!isRunning(child)) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** A TCP port free on 127.0.0.1 right now (the OS picks it); callers retry if someone takes it first. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** True when something accepts TCP connections on 127.0.0.1:`port`. */
export function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Polls `check` every 50 ms until it is true; fails after `timeoutMs`, or at once when `dead()` says
 * the process it waits for has exited. The error names `what` and carries `diagnostics()`.
 */
export async function waitUntil(
  what: string,
  check: () => Promise<boolean> | boolean,
  options: { timeoutMs: number; dead?: () => boolean; diagnostics?: () => Promise<string> },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    if (await check()) return;
    const dead = options.dead?.() === true;
    if (dead || Date.now() > deadline) {
      const info = options.diagnostics === undefined ? '' : `\n${await options.diagnostics()}`;
      throw new Error(`${what} ${dead ? 'exited before it was ready' : `was not ready within ${options.timeoutMs} ms`}${info}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The last `chars` characters of a file, or '' when it cannot be read. */
export async function tailFile(path: string, chars = 4_000): Promise<string> {
  const text = await readFile(path, 'utf8').catch(() => '');
  return text.slice(-chars);
}
