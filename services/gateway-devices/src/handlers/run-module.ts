import type { Handler } from '@nap/bus';
import { loggedRun } from '../context';
import type { GatewayDevicesContext } from '../context';

/** Runs an Ansible module ad hoc (`ansible -m`). */
export function runModule(svc: GatewayDevicesContext): Handler<'gateway-devices.runModule'> {
  return async (input) => loggedRun(svc, `module ${input.body.name}`, await svc.runners.ansible.runModule(input.body));
}
