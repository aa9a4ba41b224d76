import type { Handler } from '@nap/bus';
import { loggedRun } from '../runners';
import type { GatewayContext } from '../context';

/** Initialises an infrastructure-as-code module (`init`). */
export function initIac(g: GatewayContext): Handler<'gateway-devices.initIac'> {
  return async (input) => loggedRun(g.logger, `init ${input.body.name}`, await g.runners.iac.runIac('init', input.body));
}
