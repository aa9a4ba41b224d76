import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** One runner module with its content (or, for a directory, its files). */
export function getRunnerModule(svc: GatewayDevicesContext): Handler<'gateway-devices.getRunnerModule'> {
  return async (input) => svc.runners.catalog.get('runnerModules', input.body.name);
}
