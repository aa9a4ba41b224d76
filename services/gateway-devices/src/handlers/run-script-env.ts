import type { Handler } from '@nap/bus';
import { loggedRun } from '../runners';
import type { GatewayContext } from '../context';

/** Runs a script with the given environment variables added. */
export function runScriptEnv(g: GatewayContext): Handler<'gateway-devices.runScriptEnv'> {
  return async (input) => loggedRun(g.logger, `script ${input.body.name}`, await g.runners.scripts.runScript(input.body));
}
