import type { Handler } from '@nap/bus';
import { loggedRun } from '../runners';
import type { GatewayDevicesContext } from '../context';

/** Runs a runner module with its arguments as JSON on stdin. */
export function runRunnerModule(svc: GatewayDevicesContext): Handler<'gateway-devices.runRunnerModule'> {
  return async (input) => loggedRun(svc.logger, `runner module ${input.body.name}`, await svc.runners.scripts.runRunnerModule(input.body));
}
