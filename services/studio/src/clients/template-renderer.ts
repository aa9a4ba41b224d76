import { execFile } from 'node:child_process';
import { accessSync, constants as fsConstants } from 'node:fs';
import path from 'node:path';
import { AppError, isValid, textFsmRecordSchema } from '@nap/contracts';
import type { JinjaProfile, TemplateWorkerError, TextFsmRecord } from '@nap/contracts';
import { ConfigError } from '@nap/runtime';
import type { Logger } from '@nap/telemetry';
import { INSTALL_HINT, createTemplatePool } from './template-pool';
import type { TemplatePool, WorkerReply, WorkerRequest } from './template-pool';

/** The worker script, shipped beside the compiled code (`src/python` in the sources, `dist/python` once built). */
export const TEMPLATE_WORKER_SCRIPT = path.resolve(__dirname, '..', 'python', 'template_worker.py');

/**
 * Settings of the template renderer, read once from the environment when the studio service starts.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | `NAP_PYTHON` | `/usr/bin/python3` when it exists, else `python3` on PATH | the Python 3 with the jinja2 and textfsm modules |
 * | `NAP_TEMPLATE_WORKERS` | 2 | Python worker processes (each renders one template at a time) |
 * | `NAP_TEMPLATE_TIMEOUT_MS` | 5000 | time limit of one render or parse; the worker is then killed and replaced |
 * | `NAP_TEMPLATE_MAX_OUTPUT_BYTES` | 524288 | largest rendered text (UTF-8 bytes) or parse result |
 * | `NAP_TEMPLATE_WORKER_MEMORY_MB` | 512 | address space of one worker (RLIMIT_AS) |
 */
export interface TemplateRendererConfig {
  python: string;
  workers: number;
  timeoutMs: number;
  maxOutputBytes: number;
  memoryBytes: number;
  /** Requests waiting for a worker beyond which new ones answer 503 at once. */
  maxQueue: number;
}

const SETTINGS = {
  NAP_TEMPLATE_WORKERS: { fallback: 2, min: 1, max: 64 },
  NAP_TEMPLATE_TIMEOUT_MS: { fallback: 5_000, min: 10, max: 600_000 },
  NAP_TEMPLATE_MAX_OUTPUT_BYTES: { fallback: 524_288, min: 1_024, max: 67_108_864 },
  NAP_TEMPLATE_WORKER_MEMORY_MB: { fallback: 512, min: 64, max: 65_536 },
} as const;

/** The Debian interpreter where it exists (a pyenv or venv `python3` first on PATH often lacks the modules). */
function defaultPython(): string {
  try {
    accessSync('/usr/bin/python3', fsConstants.X_OK);
    return '/usr/bin/python3';
  } catch {
    return 'python3';
  }
}

/** Reads the renderer settings; a bad value throws a `ConfigError` listing every problem. */
export function loadTemplateRendererConfig(env: NodeJS.ProcessEnv = process.env): TemplateRendererConfig {
  const problems: string[] = [];
  const value = (key: keyof typeof SETTINGS): number => {
    const { fallback, min, max } = SETTINGS[key];
    const raw = env[key];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (Number.isInteger(n) && n >= min && n <= max) return n;
    problems.push(`${key} must be a whole number from ${min} to ${max}, got "${raw}"`);
    return fallback;
  };
  const workers = value('NAP_TEMPLATE_WORKERS');
  const config: TemplateRendererConfig = {
    python: env.NAP_PYTHON === undefined || env.NAP_PYTHON === '' ? defaultPython() : env.NAP_PYTHON,
    workers,
    timeoutMs: value('NAP_TEMPLATE_TIMEOUT_MS'),
    maxOutputBytes: value('NAP_TEMPLATE_MAX_OUTPUT_BYTES'),
    memoryBytes: value('NAP_TEMPLATE_WORKER_MEMORY_MB') * 1_048_576,
    maxQueue: 256 * workers,
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** The platform's one Jinja2 and TextFSM: Python processes of the studio service, behind a pool. */
export interface TemplateRenderer {
  /**
   * Renders a Jinja2 text. `subject` names the template in error messages (`Template "x"`).
   * Throws `TEMPLATE_RENDER_FAILED` (422; details: `kind`, `line`, `missing`), `TEMPLATE_SANDBOX_VIOLATION`
   * (400), `TEMPLATE_OUTPUT_TOO_LARGE` (422), `TEMPLATE_TIMEOUT` (422), `TEMPLATE_RENDERER_UNAVAILABLE` (503).
   */
  renderJinja(input: {
    template: string;
    context: Record<string, unknown>;
    profile: JinjaProfile;
    subject: string;
    deadline?: number;
    /** Who asks (an account id): the workers are shared out fairly between those who ask. */
    owner?: string;
  }): Promise<string>;
  /** Parses `text` with a TextFSM template (`ParseTextToDicts`). Throws `TEMPLATE_PARSE_FAILED` (422) and the pool's errors. */
  parseTextFsm(input: { template: string; text: string; subject: string; deadline?: number; owner?: string }): Promise<TextFsmRecord[]>;
  /** A round trip through a worker that does nothing: the baseline of the benchmark. */
  echo(value: unknown): Promise<unknown>;
  /** The pool (restarts, versions, and killing workers in tests). */
  readonly pool: TemplatePool;
  close(): Promise<void>;
}

function describe(subject: string, error: TemplateWorkerError, config: TemplateRendererConfig): AppError {
  const at = error.line === undefined ? '' : ` at line ${error.line}`;
  const where = error.line === undefined ? {} : { line: error.line };
  switch (error.kind) {
    case 'syntax':
      return new AppError('TEMPLATE_RENDER_FAILED', `${subject} has a syntax error${at}: ${error.message}`, {
        details: { kind: 'syntax', ...where },
      });
    case 'undefined':
    case 'render':
      return new AppError('TEMPLATE_RENDER_FAILED', `${subject} failed${at}: ${error.message}`, {
        details: { kind: error.kind, ...where, ...(error.missing === undefined ? {} : { missing: error.missing }) },
      });
    case 'memory':
      return new AppError(
        'TEMPLATE_RENDER_FAILED',
        `${subject} needed more than the ${config.memoryBytes / 1_048_576} MiB a template worker may use (NAP_TEMPLATE_WORKER_MEMORY_MB)`,
        {
          details: { kind: 'memory', limitBytes: config.memoryBytes },
        },
      );
    case 'security':
      return new AppError(
        'TEMPLATE_SANDBOX_VIOLATION',
        `${subject} was refused by the sandbox${at}: ${error.message}; templates cannot reach Python internals`,
        { details: where },
      );
    case 'output_limit':
      return new AppError(
        'TEMPLATE_OUTPUT_TOO_LARGE',
        `${subject} produced more than the limit of ${config.maxOutputBytes} bytes (NAP_TEMPLATE_MAX_OUTPUT_BYTES)`,
        {
          details: { limitBytes: config.maxOutputBytes },
        },
      );
    case 'textfsm_template':
      return new AppError('TEMPLATE_PARSE_FAILED', `${subject} is not a valid TextFSM template: ${error.message}`, {
        details: { kind: 'template' },
      });
    case 'textfsm_parse':
      return new AppError('TEMPLATE_PARSE_FAILED', `${subject} stopped on the text: ${error.message}`, { details: { kind: 'text' } });
    case 'bad_request':
      return new AppError('INTERNAL', `A template worker refused the request: ${error.message}`);
  }
}

/**
 * Whether templates can run: imports jinja2 and textfsm with the configured Python once, within
 * `timeoutMs`. Answers undefined when they can, otherwise why not and the command that turns them
 * on (what the studio service says at start; template calls answer the same with 503).
 */
export function templatingProblem(python: string, timeoutMs = 5_000): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(python, ['-I', '-c', 'import jinja2, textfsm'], { timeout: timeoutMs }, (err, _stdout, stderr) => {
      if (err === null) {
        resolve(undefined);
        return;
      }
      const code = (err as NodeJS.ErrnoException).code;
      const missing = /No module named '([^']+)'/.exec(stderr)?.[1];
      const why =
        code === 'ENOENT'
          ? `Python was not found at "${python}"`
          : missing !== undefined
            ? `Python at "${python}" lacks the module "${missing}"`
            : `Python at "${python}" could not import jinja2 and textfsm (${err.killed ? `no answer within ${timeoutMs} ms` : (stderr.trim().split('\n').pop() ?? err.message)})`;
      resolve(`${why}: ${INSTALL_HINT}`);
    });
  });
}

/** Starts the renderer; the Python workers start with the first request. */
export function createTemplateRenderer(config: TemplateRendererConfig, logger?: Logger): TemplateRenderer {
  const pool = createTemplatePool({
    python: config.python,
    script: TEMPLATE_WORKER_SCRIPT,
    size: config.workers,
    timeoutMs: config.timeoutMs,
    maxOutputBytes: config.maxOutputBytes,
    memoryBytes: config.memoryBytes,
    maxQueue: config.maxQueue,
    ...(logger === undefined ? {} : { logger }),
  });

  async function run(req: WorkerRequest, subject: string, deadline?: number, owner?: string): Promise<unknown> {
    const reply: WorkerReply = await pool.request(req, subject, deadline, owner);
    if (!reply.ok) throw describe(subject, reply.error, config);
    return reply.value;
  }

  return {
    pool,
    async renderJinja({ template, context, profile, subject, deadline, owner }) {
      const value = await run({ op: 'render', template, context, profile }, subject, deadline, owner);
      if (typeof value !== 'string') throw new AppError('INTERNAL', 'A template worker answered a render with something other than text');
      return value;
    },
    async parseTextFsm({ template, text, subject, deadline, owner }) {
      const value = await run({ op: 'parse', template, text }, subject, deadline, owner);
      if (!Array.isArray(value) || !value.every((record) => isValid(textFsmRecordSchema, record))) {
        throw new AppError('INTERNAL', 'A template worker answered a parse with something other than records');
      }
      return value;
    },
    echo: (value) => run({ op: 'echo', value }, 'The echo'),
    close: () => pool.close(),
  };
}
