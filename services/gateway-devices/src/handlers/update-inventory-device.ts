import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** Updates an inventory device (bus-only: its spec route is served by createInventoryDevice). */
export function updateInventoryDevice(g: GatewayContext): Handler<'gateway-devices.updateInventoryDevice'> {
  return async (input) => g.devices.writeView(input.body.name, input.body, 'update', input.caller);
}
