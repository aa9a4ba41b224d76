import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** The stored record of a device (secrets masked) with its trusted host key fingerprint. */
export function getDeviceDetailsRaw(g: GatewayContext): Handler<'gateway-devices.getDeviceDetailsRaw'> {
  return async (input) => g.devices.details(await g.inventory.get(input.body.name));
}
