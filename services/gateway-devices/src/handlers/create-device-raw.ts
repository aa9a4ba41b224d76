import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** Creates a device with gateway variables as given (secrets sealed). */
export function createDeviceRaw(g: GatewayContext): Handler<'gateway-devices.createDeviceRaw'> {
  return async (input) => g.devices.writeView(input.body.name, input.body, 'create', input.caller);
}
