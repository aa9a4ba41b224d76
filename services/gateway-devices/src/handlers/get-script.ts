import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** One script with its content (or, for a directory, its files). */
export function getScript(svc: GatewayDevicesContext): Handler<'gateway-devices.getScript'> {
  return async (input) => svc.runners.catalog.get('scripts', input.body.name);
}
