import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** One runner module with its content (or, for a directory, its files). */
export function getRunnerModule(g: GatewayContext): Handler<'gateway-devices.getRunnerModule'> {
  return async (input) => g.runners.catalog.get('runnerModules', input.body.name);
}
