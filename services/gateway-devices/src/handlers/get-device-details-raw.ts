import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** The stored record of a device (secrets masked) with its trusted host key fingerprint. */
export function getDeviceDetailsRaw(svc: GatewayDevicesContext): Handler<'gateway-devices.getDeviceDetailsRaw'> {
  return async (input) => svc.devices.details(await svc.inventory.get(input.body.name));
}
