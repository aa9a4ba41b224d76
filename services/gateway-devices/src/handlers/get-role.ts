import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** One role with its content (or, for a directory, its files). */
export function getRole(g: GatewayContext): Handler<'gateway-devices.getRole'> {
  return async (input) => g.runners.catalog.get('roles', input.body.name);
}
