import type { Handler } from '@nap/bus';
import { deviceDetails } from '../context';
import type { GatewayDevicesContext } from '../context';

/** The stored record of a device (secrets masked) with its trusted host key fingerprint. */
export function getDeviceDetailsRaw(svc: GatewayDevicesContext): Handler<'gateway-devices.getDeviceDetailsRaw'> {
  return async (input) => deviceDetails(svc, await svc.inventory.get(input.body.name));
}
