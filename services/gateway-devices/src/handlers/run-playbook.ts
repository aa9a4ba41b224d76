import type { Handler } from '@nap/bus';
import { loggedRun } from '../runners';
import type { GatewayContext } from '../context';

/** Runs a playbook (`ansible-playbook`) against the gateway inventory. */
export function runPlaybook(g: GatewayContext): Handler<'gateway-devices.runPlaybook'> {
  return async (input) => loggedRun(g.logger, `playbook ${input.body.name}`, await g.runners.ansible.runPlaybook(input.body, false));
}
