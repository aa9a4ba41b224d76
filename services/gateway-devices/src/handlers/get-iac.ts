import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** One infrastructure-as-code module with its content (or, for a directory, its files). */
export function getIac(g: GatewayContext): Handler<'gateway-devices.getIac'> {
  return async (input) => g.runners.catalog.get('iac', input.body.name);
}
