import { AppError } from '@nap/contracts';
import { runProcess } from '../process-run';
import type { ProcessOutcome } from '../process-run';
import type { GatewayDevicesConfig } from '../../config';

/** Arguments of a run, as the run operations receive them. */
export interface RunRequest {
  name: string;
  args?: Record<string, unknown> | string[];
  /** Seconds; capped by the configured run time limit. */
  timeout?: number;
  hosts?: string[];
  env?: Record<string, string>;
}

/** One program to run for a runner: what it is called, the command line, where and with what environment. */
export interface RunSpec {
  name: string;
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdin?: string;
}

/** Runs a program within the configured limits: the run time (a request may ask for less) and the output kept. */
export type RunProgram = (spec: RunSpec, request: RunRequest) => Promise<ProcessOutcome>;

/** The {@link RunProgram} of a gateway configuration. */
export function createRunProgram(config: GatewayDevicesConfig): RunProgram {
  return (spec, request) => {
    const asked = request.timeout === undefined ? Infinity : Math.max(1, Math.round(request.timeout * 1000));
    return runProcess({ ...spec, timeoutMs: Math.min(config.runTimeoutMs, asked), maxOutputBytes: config.runOutputBytes });
  };
}

/**
 * Environment of every run: enough to find programs and a home, nothing of the service's own
 * settings (NAP_SECRET_KEY and the like stay out), plus `extra`.
 */
export function baseEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const keep = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TMPDIR', 'USER', 'LOGNAME', 'SHELL', 'TZ'];
  const env: NodeJS.ProcessEnv = {};
  for (const k of keep) if (process.env[k] !== undefined) env[k] = process.env[k];
  return { ...env, ...extra };
}

/** `{ a: 1 }` → `--a=1`; a list is argv as given. */
export function argv(args: RunRequest['args']): string[] {
  if (args === undefined) return [];
  if (Array.isArray(args)) return args.map(String);
  return Object.entries(args).map(([k, v]) => `--${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
}

/** The arguments as variables; a list is refused (`VALIDATION_FAILED`) for runners that take variables only. */
export function objectArgs(args: RunRequest['args'], what: string): Record<string, unknown> {
  if (args === undefined) return {};
  if (Array.isArray(args)) throw new AppError('VALIDATION_FAILED', `Arguments of a ${what} are variables: give args as an object`);
  return args;
}
