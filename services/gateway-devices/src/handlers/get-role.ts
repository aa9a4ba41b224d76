import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** One role with its content (or, for a directory, its files). */
export function getRole(svc: GatewayDevicesContext): Handler<'gateway-devices.getRole'> {
  return async (input) => svc.runners.catalog.get('roles', input.body.name);
}
