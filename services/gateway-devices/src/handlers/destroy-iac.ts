import type { Handler } from '@nap/bus';
import { loggedRun } from '../context';
import type { GatewayDevicesContext } from '../context';

/** Destroys the resources of an infrastructure-as-code module (`destroy`). */
export function destroyIac(svc: GatewayDevicesContext): Handler<'gateway-devices.destroyIac'> {
  return async (input) => loggedRun(svc, `destroy ${input.body.name}`, await svc.runners.iac.runIac('destroy', input.body));
}
