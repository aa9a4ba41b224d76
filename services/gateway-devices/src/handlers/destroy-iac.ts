import type { Handler } from '@nap/bus';
import { loggedRun } from '../runners';
import type { GatewayContext } from '../context';

/** Destroys the resources of an infrastructure-as-code module (`destroy`). */
export function destroyIac(g: GatewayContext): Handler<'gateway-devices.destroyIac'> {
  return async (input) => loggedRun(g.logger, `destroy ${input.body.name}`, await g.runners.iac.runIac('destroy', input.body));
}
