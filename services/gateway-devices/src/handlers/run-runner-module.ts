import type { Handler } from '@nap/bus';
import { loggedRun } from '../runners';
import type { GatewayContext } from '../context';

/** Runs a runner module with its arguments as JSON on stdin. */
export function runRunnerModule(g: GatewayContext): Handler<'gateway-devices.runRunnerModule'> {
  return async (input) => loggedRun(g.logger, `runner module ${input.body.name}`, await g.runners.scripts.runRunnerModule(input.body));
}
