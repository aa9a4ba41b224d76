import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** One infrastructure-as-code module with its content (or, for a directory, its files). */
export function getIac(svc: GatewayDevicesContext): Handler<'gateway-devices.getIac'> {
  return async (input) => svc.runners.catalog.get('iac', input.body.name);
}
