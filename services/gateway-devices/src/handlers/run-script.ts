import type { Handler } from '@nap/bus';
import { loggedRun } from '../context';
import type { GatewayDevicesContext } from '../context';

/** Runs a script with the minimal environment. */
export function runScript(svc: GatewayDevicesContext): Handler<'gateway-devices.runScript'> {
  return async (input) => loggedRun(svc, `script ${input.body.name}`, await svc.runners.scripts.runScript({ ...input.body, env: {} }));
}
