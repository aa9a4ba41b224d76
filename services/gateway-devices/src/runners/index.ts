import type { Logger } from '@nap/telemetry';
import type { ProcessOutcome } from '../clients/process-run';
import type { GatewayConfig } from '../config';
import type { KnownHostsStore } from '../domain/known-hosts';
import type { InventoryRepository } from '../store/inventory-repository';
import { AnsibleRunner } from './ansible';
import { RunnerCatalog } from './catalog';
import { IacRunner } from './iac';
import { createRunProgram } from './runs';
import { ScriptRunner } from './scripts';

export type { RunnerEntry, RunnerItem, RunnerKind } from './catalog';
export type { IacAction } from './iac';
export type { RunRequest } from './runs';
export { AnsibleRunner, IacRunner, RunnerCatalog, ScriptRunner };

/** The runners of the gateway: discovery, Ansible, scripts and runner modules, infrastructure as code. */
export interface Runners {
  catalog: RunnerCatalog;
  ansible: AnsibleRunner;
  scripts: ScriptRunner;
  iac: IacRunner;
}

/** Creates the runners of a gateway configuration; no I/O until used. */
export function createRunners(config: GatewayConfig, inventory: InventoryRepository, knownHosts: KnownHostsStore): Runners {
  const catalog = new RunnerCatalog(config);
  const run = createRunProgram(config);
  return {
    catalog,
    ansible: new AnsibleRunner(config, catalog, inventory, run, knownHosts),
    scripts: new ScriptRunner(catalog, run),
    iac: new IacRunner(config, catalog, run),
  };
}

/** Logs a finished run (name, status, exit code, duration; never its output) and answers it. */
export function loggedRun(logger: Logger, what: string, outcome: ProcessOutcome): ProcessOutcome {
  logger.info({ run: what, status: outcome.status, exitCode: outcome.exitCode, durationMs: outcome.durationMs }, 'Runner finished');
  return outcome;
}
