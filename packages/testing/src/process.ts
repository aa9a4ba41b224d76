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

/**
 * Resolves once `output()` (what the caller keeps of the child's stdout and stderr) matches `ready`,
 * looked at each time the child writes; fails when the child exits first or after `timeoutMs`, with
 * that output. Watching the output, not polling it: a child that is ready is seen at once.
 */
export function waitForOutput(
  child: ChildProcess,
  ready: RegExp,
  options: { what: string; timeoutMs: number; output: () => string },
): Promise<void> {
  const { what, timeoutMs, output } = options;
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    const done = (err?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.stdout?.off('data', look);
      child.stderr?.off('data', look);
      child.off('exit', exited);
      if (err) reject(err);
      else resolve();
    };
    // the caller's own listeners, added before these, have kept the chunk when this one runs
    const look = () => {
      if (ready.test(output())) done();
    };
    const exited = (code: number | null, signal: NodeJS.Signals | null) =>
      done(new Error(`${what} exited (${String(code ?? signal)}) before it was ready:\n${output()}`));
    const timer = setTimeout(() => done(new Error(`${what} was not ready within ${timeoutMs} ms:\n${output()}`)), timeoutMs);
    child.stdout?.on('data', look);
    child.stderr?.on('data', look);
    child.once('exit', exited);
    look();
    if (!isRunning(child)) exited(child.exitCode, child.signalCode);
  });
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
