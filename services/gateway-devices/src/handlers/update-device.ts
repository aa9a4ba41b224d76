import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** Updates the variables (and, when given, the groups) of a device. */
export function updateDevice(g: GatewayContext): Handler<'gateway-devices.updateDevice'> {
  return async (input) => g.devices.writeView(input.body.name, input.body, 'update', input.caller);
}
