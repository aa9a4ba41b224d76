import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** Updates an inventory device (bus-only: its spec route is served by createInventoryDevice). */
export function updateInventoryDevice(svc: GatewayDevicesContext): Handler<'gateway-devices.updateInventoryDevice'> {
  return async (input) => svc.devices.writeView(input.body.name, input.body, 'update', input.caller);
}
