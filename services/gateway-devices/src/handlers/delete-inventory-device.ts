import type { Handler } from '@nap/bus';
import { removeDevice } from '../context';
import type { GatewayDevicesContext } from '../context';

/** `DELETE /gw/deleteInventoryDevice`: deletes a device and its configuration backups. */
export function deleteInventoryDevice(svc: GatewayDevicesContext): Handler<'gateway-devices.deleteInventoryDevice'> {
  return async (input) => removeDevice(svc, input.body.name, input.caller);
}
