import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** Deletes a device and its configuration backups. */
export function deleteDevice(g: GatewayContext): Handler<'gateway-devices.deleteDevice'> {
  return async (input) => g.devices.remove(input.body.name, input.caller);
}
