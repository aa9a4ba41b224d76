import type { Handler } from '@nap/bus';
import { loggedRun } from '../context';
import type { GatewayDevicesContext } from '../context';

/** Plans an infrastructure-as-code module (`plan`). */
export function planIac(svc: GatewayDevicesContext): Handler<'gateway-devices.planIac'> {
  return async (input) => loggedRun(svc, `plan ${input.body.name}`, await svc.runners.iac.runIac('plan', input.body));
}
