import path from 'node:path';
import { AppError } from '@nap/contracts';
import type { ProcessOutcome } from '../process-run';
import type { RunnerCatalog } from './catalog';
import { isExecutable } from './files';
import { argv, baseEnv } from './runs';
import type { RunProgram, RunRequest } from './runs';

/** How to start a file: itself when executable, else the interpreter its extension names. */
function interpreter(file: string): { command: string; args: string[] } {
  if (isExecutable(file)) return { command: file, args: [] };
  if (file.endsWith('.sh')) return { command: '/bin/sh', args: [file] };
  if (file.endsWith('.py')) return { command: 'python3', args: [file] };
  if (file.endsWith('.js') || file.endsWith('.mjs')) return { command: process.execPath, args: [file] };
  throw new AppError('UNPROCESSABLE', `${path.basename(file)} is not executable and has no known interpreter (.sh, .py, .js)`);
}

/**
 * Executables: scripts (arguments as `--key=value` flags or argv, optional environment) and runner
 * modules (JSON arguments on stdin and in `NAP_ARGS`).
 */
export class ScriptRunner {
  constructor(
    private readonly catalog: RunnerCatalog,
    private readonly run: RunProgram,
  ) {}

  /** Runs a script of the scripts directory with `req.env` added to the minimal environment. */
  async runScript(req: RunRequest): Promise<ProcessOutcome> {
    const { file } = await this.catalog.find('scripts', req.name);
    const { command, args } = interpreter(file);
    return this.run(
      {
        name: `script ${req.name}`,
        command,
        args: [...args, ...argv(req.args)],
        cwd: path.dirname(file),
        env: baseEnv({ ...(req.env ?? {}) }),
      },
      req,
    );
  }

  /** Runs a runner module with its arguments as JSON on stdin and in `NAP_ARGS`. */
  async runRunnerModule(req: RunRequest): Promise<ProcessOutcome> {
    const { file } = await this.catalog.find('runnerModules', req.name);
    const { command, args } = interpreter(file);
    const json = JSON.stringify(req.args ?? {});
    return this.run(
      { name: `runner module ${req.name}`, command, args, cwd: path.dirname(file), env: baseEnv({ NAP_ARGS: json }), stdin: json },
      req,
    );
  }
}
