import type { Handler } from '@nap/bus';
import { loggedRun } from '../runners';
import type { GatewayContext } from '../context';

/** Runs a script with the minimal environment. */
export function runScript(g: GatewayContext): Handler<'gateway-devices.runScript'> {
  return async (input) => loggedRun(g.logger, `script ${input.body.name}`, await g.runners.scripts.runScript({ ...input.body, env: {} }));
}
