import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** One module with its content (or, for a directory, its files). */
export function getModule(g: GatewayContext): Handler<'gateway-devices.getModule'> {
  return async (input) => g.runners.catalog.get('modules', input.body.name);
}
