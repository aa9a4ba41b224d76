import type { Handler } from '@nap/bus';
import { loggedRun } from '../context';
import type { GatewayDevicesContext } from '../context';

/** Runs a playbook (`ansible-playbook`) against the gateway inventory. */
export function runPlaybook(svc: GatewayDevicesContext): Handler<'gateway-devices.runPlaybook'> {
  return async (input) => loggedRun(svc, `playbook ${input.body.name}`, await svc.runners.ansible.runPlaybook(input.body, false));
}
