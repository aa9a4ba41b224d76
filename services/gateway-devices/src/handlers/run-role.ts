import type { Handler } from '@nap/bus';
import { loggedRun } from '../context';
import type { GatewayDevicesContext } from '../context';

/** Runs a role in a generated play. */
export function runRole(svc: GatewayDevicesContext): Handler<'gateway-devices.runRole'> {
  return async (input) => loggedRun(svc, `role ${input.body.name}`, await svc.runners.ansible.runRole(input.body));
}
