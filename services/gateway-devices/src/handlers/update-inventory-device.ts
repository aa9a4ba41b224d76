import type { Handler } from '@nap/bus';
import { writeDeviceView } from '../context';
import type { GatewayDevicesContext } from '../context';

/** Updates an inventory device (bus-only: its spec route is served by createInventoryDevice). */
export function updateInventoryDevice(svc: GatewayDevicesContext): Handler<'gateway-devices.updateInventoryDevice'> {
  return async (input) => writeDeviceView(svc, input.body.name, input.body, 'update', input.caller);
}
