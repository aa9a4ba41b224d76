import type { Handler } from '@nap/bus';
import { loggedRun } from '../context';
import type { GatewayDevicesContext } from '../context';

/** Runs a runner module with its arguments as JSON on stdin. */
export function runRunnerModule(svc: GatewayDevicesContext): Handler<'gateway-devices.runRunnerModule'> {
  return async (input) => loggedRun(svc, `runner module ${input.body.name}`, await svc.runners.scripts.runRunnerModule(input.body));
}
