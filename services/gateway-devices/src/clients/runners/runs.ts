import { AppError, findSecrets, noSecrets, secretMask } from '@nap/contracts';
import type { FoundSecrets } from '@nap/contracts';
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
  /** Secrets the program is given besides those of the request (an inventory's), masked in what it gives. */
  secrets?: FoundSecrets;
}

/** Runs a program within the configured limits: the run time (a request may ask for less) and the output kept. */
export type RunProgram = (spec: RunSpec, request: RunRequest) => Promise<ProcessOutcome>;

/**
 * The {@link RunProgram} of a gateway configuration. What a run gives has masked the secrets it was
 * given: those of the request's arguments and environment ({@link requestSecrets}) and `spec.secrets`.
 */
export function createRunProgram(config: GatewayDevicesConfig): RunProgram {
  return ({ secrets, ...spec }, request) => {
    const asked = request.timeout === undefined ? Infinity : Math.max(1, Math.round(request.timeout * 1000));
    const mask = secretMask(requestSecrets(request, noSecrets(secrets)));
    return runProcess({ ...spec, timeoutMs: Math.min(config.runTimeoutMs, asked), maxOutputBytes: config.runOutputBytes, mask });
  };
}

/** An argument of a list that names an option: `--password`, `-p`, `--password=…` (its name and value). */
const OPTION = /^--?([^=\s]+)(?:=([\s\S]*))?$/;

/**
 * Adds to `found` the secrets a run request gives the program, by the platform's secret policy: the
 * members of `args` with a secret name (`{ password: … }`, as `--password=…` flags, variables or JSON),
 * the variables of `env` with one (`DEVICE_PASSWORD`, `API_TOKEN`), key material anywhere; and in an
 * argument list, the value of an option with a secret name, joined (`--password=…`) or the next
 * argument (`--password …`).
 */
export function requestSecrets(request: Pick<RunRequest, 'args' | 'env'>, found: FoundSecrets = noSecrets()): FoundSecrets {
  const { args, env } = request;
  findSecrets(env ?? {}, found);
  if (!Array.isArray(args)) return findSecrets(args ?? {}, found);
  findSecrets(args, found);
  const options: Record<string, unknown>[] = [];
  args.forEach((arg, i) => {
    const m = OPTION.exec(String(arg));
    if (m === null || m[1] === undefined) return;
    const next = args[i + 1];
    if (m[2] !== undefined) options.push({ [m[1]]: m[2] });
    else if (next !== undefined && !String(next).startsWith('-')) options.push({ [m[1]]: String(next) });
  });
  return findSecrets(options, found);
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
