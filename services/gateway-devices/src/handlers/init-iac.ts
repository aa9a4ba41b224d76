import type { Handler } from '@nap/bus';
import { loggedRun } from '../context';
import type { GatewayDevicesContext } from '../context';

/** Initialises an infrastructure-as-code module (`init`). */
export function initIac(svc: GatewayDevicesContext): Handler<'gateway-devices.initIac'> {
  return async (input) => loggedRun(svc, `init ${input.body.name}`, await svc.runners.iac.runIac('init', input.body));
}
