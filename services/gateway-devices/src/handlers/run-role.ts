import type { Handler } from '@nap/bus';
import { loggedRun } from '../runners';
import type { GatewayContext } from '../context';

/** Runs a role in a generated play. */
export function runRole(g: GatewayContext): Handler<'gateway-devices.runRole'> {
  return async (input) => loggedRun(g.logger, `role ${input.body.name}`, await g.runners.ansible.runRole(input.body));
}
