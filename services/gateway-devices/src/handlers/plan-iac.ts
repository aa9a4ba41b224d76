import type { Handler } from '@nap/bus';
import { loggedRun } from '../runners';
import type { GatewayContext } from '../context';

/** Plans an infrastructure-as-code module (`plan`). */
export function planIac(g: GatewayContext): Handler<'gateway-devices.planIac'> {
  return async (input) => loggedRun(g.logger, `plan ${input.body.name}`, await g.runners.iac.runIac('plan', input.body));
}
