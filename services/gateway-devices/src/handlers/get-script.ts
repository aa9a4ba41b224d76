import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** One script with its content (or, for a directory, its files). */
export function getScript(g: GatewayContext): Handler<'gateway-devices.getScript'> {
  return async (input) => g.runners.catalog.get('scripts', input.body.name);
}
