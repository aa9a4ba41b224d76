import { AppError } from '@nap/contracts';
import { findOnPath } from '../process-run';
import type { ProcessOutcome } from '../process-run';
import type { GatewayDevicesConfig } from '../../config';
import type { RunnerCatalog } from './catalog';
import { baseEnv, objectArgs } from './runs';
import type { RunProgram, RunRequest } from './runs';

/** What an infrastructure-as-code run does. */
export type IacAction = 'init' | 'plan' | 'apply' | 'destroy';

/** Infrastructure as code: `tofu` or `terraform` in a module's directory (its state kept there). */
export class IacRunner {
  constructor(
    private readonly config: GatewayDevicesConfig,
    private readonly catalog: RunnerCatalog,
    private readonly run: RunProgram,
  ) {}

  /** The IaC program: NAP_GW_IAC_BINARY, else `tofu`, else `terraform` on PATH. */
  binary(): string | undefined {
    return this.config.iacBinary ?? findOnPath('tofu') ?? findOnPath('terraform');
  }

  /**
   * Runs `action` in the module's directory, arguments as `-var`s. After a successful apply the
   * outputs (`output -json`) are the outcome's `result`. Errors: `RUNNER_TOOL_MISSING`, and those of a run.
   */
  async runIac(action: IacAction, req: RunRequest): Promise<ProcessOutcome> {
    const { file } = await this.catalog.find('iac', req.name);
    const binary = this.binary();
    if (binary === undefined)
      throw new AppError('RUNNER_TOOL_MISSING', 'Neither tofu nor terraform is installed (or set NAP_GW_IAC_BINARY)');
    const vars = Object.entries(objectArgs(req.args, 'IaC module')).flatMap(([k, v]) => [
      '-var',
      `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`,
    ]);
    const args: Record<IacAction, string[]> = {
      init: ['init', '-input=false', '-no-color'],
      plan: ['plan', '-input=false', '-no-color', ...vars],
      apply: ['apply', '-auto-approve', '-input=false', '-no-color', ...vars],
      destroy: ['destroy', '-auto-approve', '-input=false', '-no-color', ...vars],
    };
    const env = baseEnv({ TF_IN_AUTOMATION: '1', TF_INPUT: '0', CHECKPOINT_DISABLE: '1' });
    const outcome = await this.run({ name: `${action} ${req.name}`, command: binary, args: args[action], cwd: file, env }, req);
    if (action === 'apply' && outcome.status === 'success') {
      const outputs = await this.run(
        { name: `output ${req.name}`, command: binary, args: ['output', '-json', '-no-color'], cwd: file, env },
        req,
      );
      if (outputs.result !== undefined) outcome.result = outputs.result;
    }
    return outcome;
  }
}
