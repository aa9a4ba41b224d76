import type { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { connect as connectTcp } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { isExecutable, spawnTracked } from './process';

/** Options of {@link startNatsServer}. */
export interface NatsServerOptions {
  /** Enables JetStream with a store in the server's temp dir. Defaults to `true`. */
  jetstream?: boolean;
  /** Fixed client port; defaults to a free port picked by the server (`-p -1`). */
  port?: number;
  /** Path of the binary; defaults to `NAP_NATS_SERVER_BIN`, `/usr/sbin/nats-server`, then `nats-server` on PATH. */
  binary?: string;
  /** How long to wait until the server accepts connections. Defaults to 15 s. */
  startTimeoutMs?: number;
  /** Extra command-line arguments, appended last. */
  args?: string[];
}

/** A nats-server child process on loopback, owned by one test. */
export interface NatsServer {
  /** `nats://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** Temp dir of this server (JetStream store under `jetstream/`); removed by `stop()`. */
  readonly dir: string;
  /** True while the process runs. */
  isRunning(): boolean;
  /** Stops the server gracefully (SIGTERM, SIGKILL after 5 s) and removes its temp dir. Idempotent. */
  stop(): Promise<void>;
  /** Kills the server with SIGKILL and keeps its store, so `restart()` can recover it like after a crash. */
  kill(): Promise<void>;
  /** Stops the server if it runs (keeping its store), then starts it again on the same port. */
  restart(): Promise<void>;
}

const DEFAULT_START_TIMEOUT_MS = 15_000;
const STOP_GRACE_MS = 5_000;
const LOG_TAIL_CHARS = 4_000;

/**
 * Finds the nats-server binary: the explicit path, `NAP_NATS_SERVER_BIN`, `/usr/sbin/nats-server`,
 * then `nats-server` on PATH. Throws an error naming the package to install when none is found.
 */
export function findNatsServerBinary(explicit?: string): string {
  const candidates = [
    explicit,
    process.env.NAP_NATS_SERVER_BIN,
    '/usr/sbin/nats-server',
    '/usr/bin/nats-server',
    '/usr/local/bin/nats-server',
  ];
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir !== '') candidates.push(join(dir, 'nats-server'));
  }
  for (const candidate of candidates) {
    if (candidate !== undefined && candidate !== '' && isExecutable(candidate)) return candidate;
  }
  throw new Error(
    'nats-server was not found (looked at NAP_NATS_SERVER_BIN, /usr/sbin/nats-server and PATH); ' +
      'install it with `apt-get install -y nats-server` or set NAP_NATS_SERVER_BIN to its path',
  );
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connectTcp({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Reads the port the server bound from its ports file (`<exe>_<pid>.ports`, JSON with `nats: [url]`). */
async function readPortsFile(dir: string, pid: number): Promise<number | undefined> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const name = names.find((n) => n.endsWith(`_${pid}.ports`));
  if (name === undefined) return undefined;
  try {
    const parsed = JSON.parse(await readFile(join(dir, name), 'utf8')) as { nats?: string[] };
    const url = parsed.nats?.[0];
    if (url === undefined) return undefined;
    const port = Number(new URL(url).port);
    return Number.isInteger(port) && port > 0 ? port : undefined;
  } catch {
    // the server may still be writing the file
    return undefined;
  }
}

interface Running {
  child: ChildProcess;
  exited: Promise<void>;
  log: () => string;
}

function spawnServer(binary: string, args: string[]): Running {
  const child = spawnTracked(binary, args);
  let tail = '';
  const keep = (chunk: Buffer): void => {
    tail = (tail + chunk.toString('utf8')).slice(-LOG_TAIL_CHARS);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', (err) => {
      tail += `\nspawn failed: ${err.message}`;
      resolve();
    });
  });
  return { child, exited, log: () => tail };
}

async function terminate(proc: Running, signal: NodeJS.Signals): Promise<void> {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  proc.child.kill(signal);
  let timer: NodeJS.Timeout | undefined;
  const graceful = await Promise.race([
    proc.exited.then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), STOP_GRACE_MS);
    }),
  ]);
  clearTimeout(timer);
  if (!graceful) {
    proc.child.kill('SIGKILL');
    await proc.exited;
  }
}

/**
 * Starts a `nats-server` on 127.0.0.1 on a free port (or `options.port`), with JetStream stored in a
 * fresh temp dir, and resolves once it accepts TCP connections. Each test should start its own.
 *
 * Fails with a message naming `apt-get install -y nats-server` when the binary is missing, and with
 * the tail of the server log when it does not come up within `startTimeoutMs`.
 */
export async function startNatsServer(options: NatsServerOptions = {}): Promise<NatsServer> {
  const binary = findNatsServerBinary(options.binary);
  const jetstream = options.jetstream ?? true;
  const startTimeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  const dir = await mkdtemp(join(tmpdir(), 'nap-nats-'));
  const portsDir = join(dir, 'ports');
  await mkdir(portsDir);

  let port = options.port ?? -1;
  let current: Running | undefined;
  let removed = false;

  const launch = async (): Promise<void> => {
    const args = ['-a', '127.0.0.1', '-p', String(port), '--ports_file_dir', portsDir];
    if (jetstream) args.push('-js', '-sd', join(dir, 'jetstream'));
    args.push(...(options.args ?? []));
    const proc = spawnServer(binary, args);
    current = proc;
    const deadline = Date.now() + startTimeoutMs;
    let exited = false;
    void proc.exited.then(() => {
      exited = true;
    });
    while (Date.now() < deadline && !exited) {
      const pid = proc.child.pid;
      const bound = pid === undefined ? undefined : port > 0 ? port : await readPortsFile(portsDir, pid);
      if (bound !== undefined && (await canConnect(bound))) {
        port = bound;
        return;
      }
      await sleep(20);
    }
    await terminate(proc, 'SIGKILL');
    const why = exited
      ? `exited with ${String(proc.child.exitCode ?? proc.child.signalCode)}`
      : `did not accept connections within ${startTimeoutMs} ms`;
    throw new Error(`nats-server (${binary} ${args.join(' ')}) ${why}; its log ends with:\n${proc.log()}`);
  };

  try {
    await launch();
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }

  const server: NatsServer = {
    get url() {
      return `nats://127.0.0.1:${port}`;
    },
    get port() {
      return port;
    },
    dir,
    isRunning: () => current !== undefined && current.child.exitCode === null && current.child.signalCode === null,
    async stop() {
      if (current !== undefined) await terminate(current, 'SIGTERM');
      if (!removed) {
        removed = true;
        await rm(dir, { recursive: true, force: true });
      }
    },
    async kill() {
      if (current !== undefined) await terminate(current, 'SIGKILL');
    },
    async restart() {
      if (removed) throw new Error(`nats-server on port ${port} was stopped and its dir removed; start a new one`);
      if (current !== undefined) await terminate(current, 'SIGTERM');
      await launch();
    },
  };
  return server;
}
