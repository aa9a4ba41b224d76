import type { GatewayDevicesConfig } from '../../config';
import type { KnownHostsStore } from '../../store/known-hosts-repository';
import type { InventoryRepository } from '../../store/inventory-repository';
import { AnsibleRunner } from './ansible';
import { RunnerCatalog } from './catalog';
import { IacRunner } from './iac';
import { createRunProgram } from './runs';
import { ScriptRunner } from './scripts';

/** The runners of the gateway: discovery, Ansible, scripts and runner modules, infrastructure as code. */
export interface Runners {
  catalog: RunnerCatalog;
  ansible: AnsibleRunner;
  scripts: ScriptRunner;
  iac: IacRunner;
}

/** Creates the runners of a gateway configuration; no I/O until used. */
export function createRunners(config: GatewayDevicesConfig, inventory: InventoryRepository, knownHosts: KnownHostsStore): Runners {
  const catalog = new RunnerCatalog(config);
  const run = createRunProgram(config);
  return {
    catalog,
    ansible: new AnsibleRunner(config, catalog, inventory, run, knownHosts),
    scripts: new ScriptRunner(catalog, run),
    iac: new IacRunner(config, catalog, run),
  };
}
