import type { Handler } from '@nap/bus';
import { loggedRun } from '../context';
import type { GatewayDevicesContext } from '../context';

/** Applies an infrastructure-as-code module (`apply`); its outputs are the result. */
export function applyIac(svc: GatewayDevicesContext): Handler<'gateway-devices.applyIac'> {
  return async (input) => loggedRun(svc, `apply ${input.body.name}`, await svc.runners.iac.runIac('apply', input.body));
}
