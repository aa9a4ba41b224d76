import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** Deletes a device and its configuration backups. */
export function deleteDevice(svc: GatewayDevicesContext): Handler<'gateway-devices.deleteDevice'> {
  return async (input) => svc.devices.remove(input.body.name, input.caller);
}
