import type { Handler } from '@nap/bus';
import { loggedRun } from '../context';
import type { GatewayDevicesContext } from '../context';

/** Runs a script with the given environment variables added. */
export function runScriptEnv(svc: GatewayDevicesContext): Handler<'gateway-devices.runScriptEnv'> {
  return async (input) => loggedRun(svc, `script ${input.body.name}`, await svc.runners.scripts.runScript(input.body));
}
