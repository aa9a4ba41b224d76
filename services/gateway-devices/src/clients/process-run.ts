import { spawn } from 'node:child_process';
import { accessSync, constants as fsConstants } from 'node:fs';
import path from 'node:path';
import { AppError, MIN_SECRET_CHARS } from '@nap/contracts';
import type { SecretMask } from '@nap/contracts';

/** How to run one program. */
export interface ProcessSpec {
  /** What the run is called in messages and in the outcome (`playbook site.yml`). */
  name: string;
  command: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Written to stdin, then stdin is closed. */
  stdin?: string;
  timeoutMs: number;
  /** stdout and stderr kept, each; the rest is dropped (the tail is kept). */
  maxOutputBytes: number;
  /**
   * Masks the secrets the program was given (its arguments, environment, inventory) in what it
   * gives: stdout, stderr and the result, and the output in a `RUNNER_TIMEOUT` error. Applied to
   * all the output kept before any of it is cut, so that no cut leaves part of a secret.
   */
  mask: SecretMask;
}

/** What a run gave. */
export interface ProcessOutcome {
  status: 'success' | 'error';
  name: string;
  exitCode: number | null;
  signal?: string;
  stdout: string;
  stderr: string;
  durationMs: number;
  timedOut: boolean;
  result?: unknown;
}

/** One output stream of a run, its end kept up to `max` bytes. */
class Capped {
  private chunks: Buffer[] = [];
  private size = 0;
  truncated = false;
  constructor(private readonly max: number) {}
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.max && this.chunks.length > 1) {
      this.size -= this.chunks[0]?.length ?? 0;
      this.chunks.shift();
      this.truncated = true;
    }
  }
  /** The output kept, as it is: `undefined` when some was dropped. */
  whole(): string | undefined {
    const all = Buffer.concat(this.chunks);
    return this.truncated || all.length > this.max ? undefined : all.toString('utf8');
  }
  /**
   * The output kept, its secrets masked. When its start was dropped, the cut can fall inside a
   * secret: the kept end starts at a whole character (a split one would hide a secret's end from
   * the mask), an end of a secret there is masked (`tail`), and a shorter one, which no mask
   * searches for, is dropped with the first {@link MIN_SECRET_CHARS} - 1 characters.
   */
  text(mask: SecretMask): string {
    const all = Buffer.concat(this.chunks);
    if (!this.truncated && all.length <= this.max) return mask.text(all.toString('utf8'));
    let start = Math.max(0, all.length - this.max);
    // UTF-8 continuation bytes (10xxxxxx) belong to a character whose start was cut off
    while (start < all.length && ((all[start] ?? 0) & 0xc0) === 0x80) start++;
    return `[output truncated]\n${mask.tail(all.subarray(start).toString('utf8')).slice(MIN_SECRET_CHARS - 1)}`;
  }
}

/** Characters of each output a `RUNNER_TIMEOUT` error keeps: its end, masked before it is cut. */
const TIMEOUT_OUTPUT_CHARS = 4000;

/** The JSON value of `text` when it is one JSON document; `undefined` otherwise. */
export function parseJsonOutput(text: string): unknown {
  const t = text.trim();
  if (!(t.startsWith('{') || t.startsWith('['))) return undefined;
  try {
    return JSON.parse(t) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Runs a program in a process group of its own, bounded by `timeoutMs` (SIGTERM to the whole group,
 * SIGKILL 2 s later), with its output captured and capped. A non-zero exit is an outcome with status
 * `error`, not a throw. Throws `RUNNER_TOOL_MISSING` when the program does not exist and
 * `RUNNER_TIMEOUT` (details: the end of the output so far) when the time limit stops it. What it
 * gives has the secrets of `spec.mask` masked.
 */
export function runProcess(spec: ProcessSpec): Promise<ProcessOutcome> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(spec.command, [...spec.args], { cwd: spec.cwd, env: spec.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    const out = new Capped(spec.maxOutputBytes);
    const err = new Capped(spec.maxOutputBytes);
    let timedOut = false;
    let killTimer: NodeJS.Timeout | undefined;
    const killGroup = (signal: NodeJS.Signals): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, signal);
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup('SIGTERM');
      killTimer = setTimeout(() => killGroup('SIGKILL'), 2_000);
    }, spec.timeoutMs);
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.stdin.on('error', () => undefined);
    child.once('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (e.code === 'ENOENT') {
        reject(new AppError('RUNNER_TOOL_MISSING', `${spec.command} is not installed (needed for ${spec.name})`, { cause: e }));
      } else {
        reject(new AppError('INTERNAL', `${spec.name} could not be started: ${e.message}`, { cause: e }));
      }
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(killTimer);
      const durationMs = Date.now() - started;
      const stdout = out.text(spec.mask);
      const stderr = err.text(spec.mask);
      if (timedOut) {
        const details = {
          timeoutMs: spec.timeoutMs,
          durationMs,
          stdout: stdout.slice(-TIMEOUT_OUTPUT_CHARS),
          stderr: stderr.slice(-TIMEOUT_OUTPUT_CHARS),
        };
        reject(new AppError('RUNNER_TIMEOUT', `${spec.name} did not finish within ${spec.timeoutMs} ms and was stopped`, { details }));
        return;
      }
      const outcome: ProcessOutcome = {
        status: code === 0 ? 'success' : 'error',
        name: spec.name,
        exitCode: code,
        stdout,
        stderr,
        durationMs,
        timedOut: false,
      };
      if (signal !== null) outcome.signal = signal;
      // parsed as the program wrote it (a secret's form can be JSON syntax), then masked
      const whole = out.whole();
      const json = whole === undefined ? undefined : parseJsonOutput(whole);
      if (json !== undefined) outcome.result = spec.mask.value(json);
      resolve(outcome);
    });
    if (spec.stdin !== undefined) child.stdin.end(spec.stdin);
    else child.stdin.end();
  });
}

/** The first executable of that name on PATH, or `undefined`. */
export function findOnPath(program: string, envPath = process.env.PATH ?? ''): string | undefined {
  for (const dir of envPath.split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, program);
    try {
      accessSync(candidate, fsConstants.X_OK);
      return candidate;
    } catch {
      // next
    }
  }
  return undefined;
}
