import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { PassThrough, Writable } from 'node:stream';
import { NAP_BIN, ROOT } from './platform';

/** The outcome of one `nap` run. */
export interface NapResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (for -o json). */
  json<T = unknown>(): T;
}

/** A `nap` left running in the background: what it has written so far, and its exit code once it ends. */
export interface NapChild {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
}

/** Starts `nap args` with `env` (no stdin) and collects what it writes, for a test that acts on it while it runs (a signal, a platform gone). */
export function spawnNap(args: readonly string[], env: NodeJS.ProcessEnv): NapChild {
  const child = spawn(process.execPath, [NAP_BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
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

export interface NapOptions {
  /** The whole environment of the run (a home's `env`, with more). */
  env: NodeJS.ProcessEnv;
  /** The folder it runs in; the system's temporary folder by default. */
  cwd?: string;
  /** What stdin holds (a pipe, not a terminal). */
  input?: string;
  /** stdin is a terminal where nobody types (Ctrl-D at once), instead of `input`: for runs in this process ({@link napInProcess}). */
  terminal?: boolean;
  /**
   * stdout and stderr are terminals (120 columns), as a person's are, instead of pipes: for runs in
   * this process ({@link napInProcess}); colours are on unless `env` turns them off.
   */
  tty?: boolean;
  /** A process of its own is killed after this long: 60 s by default. */
  timeoutMs?: number;
}

function result(args: readonly string[], code: number | null, stdout: string, stderr: string): NapResult {
  return {
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
  };
}

/** Runs the built `nap` bin with `args` in a process of its own; never throws on a non-zero exit. */
export function nap(args: readonly string[], opts: NapOptions): Promise<NapResult> {
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
      resolve(result(args, code, stdout, stderr));
    });
    // a command that reads no stdin may have ended before its input is written: EPIPE, not an error of the test
    child.stdin.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') reject(err);
    });
    child.stdin.end(opts.input ?? '');
  });
}

interface Io {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
}
interface Cli {
  main(argv: readonly string[], io: Io): Promise<number>;
}

let cli: Cli | undefined;
// runs in this process one at a time: a command's exit code is process.exitCode, and the folder it works in process.cwd()
let queue: Promise<unknown> = Promise.resolve();

function collector(tty: boolean): { stream: NodeJS.WriteStream; text(): string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      done();
    },
  });
  // a terminal's cursor moves as node's tty.WriteStream writes them (a spinner clears its line)
  if (tty)
    Object.assign(stream, {
      isTTY: true,
      columns: 120,
      cursorTo: (x: number, y?: number) => readline.cursorTo(stream, x, y),
      moveCursor: (dx: number, dy: number) => readline.moveCursor(stream, dx, dy),
      clearLine: (dir: -1 | 0 | 1) => readline.clearLine(stream, dir),
    });
  return { stream: stream as unknown as NodeJS.WriteStream, text: () => Buffer.concat(chunks).toString() };
}

/** What a run needs of its own process: git run with the process's environment (`--repository`), or an environment without HOME. */
function needsProcess(args: readonly string[], opts: NapOptions): boolean {
  if (opts.env.HOME === undefined || opts.env.HOME === '') return true;
  return args.includes('--repository');
}

/**
 * The environment of a run in this process: the bundle finds the home folder with os.homedir(),
 * which reads this process's HOME, so the files under the run's HOME are named by the variables
 * that name them anyway (the same paths the bin would use).
 */
function inProcessEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const home = env.HOME as string;
  const orHome = (value: string | undefined, folder: string): string =>
    value === undefined || value === '' ? path.join(home, folder) : value;
  return {
    ...env,
    IPCTL_CONFIG_FILE: env.IPCTL_CONFIG_FILE ?? path.join(home, '.platform.d', 'config'),
    XDG_CONFIG_HOME: orHome(env.XDG_CONFIG_HOME, '.config'),
    XDG_CACHE_HOME: orHome(env.XDG_CACHE_HOME, '.cache'),
  };
}

async function runInProcess(args: readonly string[], opts: NapOptions): Promise<NapResult> {
  // the bundle the bin runs (dist/nap.js), through its exported entry point
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  cli ??= require(path.join(ROOT, 'cli/dist/nap.js')) as Cli;
  const stdout = collector(opts.tty === true);
  const stderr = collector(opts.tty === true);
  // stdin as the bin gets it: a pipe holding the input (nothing by default), or a terminal
  const pipe = new PassThrough();
  const stdin = Object.assign(pipe, { isTTY: opts.terminal === true }) as unknown as NodeJS.ReadStream;
  pipe.end(opts.terminal === true ? undefined : opts.input);
  const cwd = process.cwd();
  const exitCode = process.exitCode;
  process.chdir(opts.cwd ?? os.tmpdir());
  process.exitCode = undefined;
  try {
    const code = await cli.main([...args], { stdin, stdout: stdout.stream, stderr: stderr.stream, env: inProcessEnv(opts.env) });
    return result(args, code, stdout.text(), stderr.text());
  } finally {
    process.exitCode = exitCode;
    process.chdir(cwd);
  }
}

/**
 * Runs `nap` with `args` as {@link nap} does, without a process of its own each time (a node start
 * costs more than most commands): in this process through the bundle's `main`, the function
 * `bin/nap.js` calls, one run at a time, its stdin a stream holding `input`; in a process of its
 * own when the run runs git. The files that run most commands
 * this way keep a few through the bin, to prove it works.
 */
export function napInProcess(args: readonly string[], opts: NapOptions): Promise<NapResult> {
  if (needsProcess(args, opts)) {
    if (opts.terminal === true || opts.tty === true) throw new Error('a run in a process of its own has no terminal');
    return nap(args, opts);
  }
  const run = queue.then(() => runInProcess(args, opts));
  queue = run.catch(() => undefined);
  return run;
}

/** The profile section of a platform, as ipctl writes it. */
export function profileSection(name: string, port: number, password: string, extra = ''): string {
  return `[profile ${name}]\nhost = 127.0.0.1\nport = ${port}\nuse_tls = false\nusername = admin\npassword = ${password}\n${extra}`;
}

export const FIXTURES = path.resolve(__dirname, '../fixtures');
