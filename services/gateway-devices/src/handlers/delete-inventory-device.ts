import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** `DELETE /gw/deleteInventoryDevice`: deletes a device and its configuration backups. */
export function deleteInventoryDevice(svc: GatewayDevicesContext): Handler<'gateway-devices.deleteInventoryDevice'> {
  return async (input) => svc.devices.remove(input.body.name, input.caller);
}
