import type { Handler } from '@nap/bus';
import { loggedRun } from '../runners';
import type { GatewayContext } from '../context';

/** Runs an Ansible module ad hoc (`ansible -m`). */
export function runModule(g: GatewayContext): Handler<'gateway-devices.runModule'> {
  return async (input) => loggedRun(g.logger, `module ${input.body.name}`, await g.runners.ansible.runModule(input.body));
}
