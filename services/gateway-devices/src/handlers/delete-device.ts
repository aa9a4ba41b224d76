import type { Handler } from '@nap/bus';
import { removeDevice } from '../context';
import type { GatewayDevicesContext } from '../context';

/** Deletes a device and its configuration backups. */
export function deleteDevice(svc: GatewayDevicesContext): Handler<'gateway-devices.deleteDevice'> {
  return async (input) => removeDevice(svc, input.body.name, input.caller);
}
