import type { Handler } from '@nap/bus';
import { loggedRun } from '../context';
import type { GatewayDevicesContext } from '../context';

/** Runs a playbook in check mode (`--check`). */
export function dryRunPlaybook(svc: GatewayDevicesContext): Handler<'gateway-devices.dryRunPlaybook'> {
  return async (input) => loggedRun(svc, `playbook ${input.body.name} --check`, await svc.runners.ansible.runPlaybook(input.body, true));
}
