import type { Handler } from '@nap/bus';
import { loggedRun } from '../runners';
import type { GatewayContext } from '../context';

/** Applies an infrastructure-as-code module (`apply`); its outputs are the result. */
export function applyIac(g: GatewayContext): Handler<'gateway-devices.applyIac'> {
  return async (input) => loggedRun(g.logger, `apply ${input.body.name}`, await g.runners.iac.runIac('apply', input.body));
}
