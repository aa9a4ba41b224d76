import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** One module with its content (or, for a directory, its files). */
export function getModule(svc: GatewayDevicesContext): Handler<'gateway-devices.getModule'> {
  return async (input) => svc.runners.catalog.get('modules', input.body.name);
}
