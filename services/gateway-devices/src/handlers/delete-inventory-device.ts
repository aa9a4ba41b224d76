import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** `DELETE /gw/deleteInventoryDevice`: deletes a device and its configuration backups. */
export function deleteInventoryDevice(g: GatewayContext): Handler<'gateway-devices.deleteInventoryDevice'> {
  return async (input) => g.devices.remove(input.body.name, input.caller);
}
