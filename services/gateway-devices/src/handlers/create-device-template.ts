import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** Creates a device template. */
export function createDeviceTemplate(g: GatewayContext): Handler<'gateway-devices.createDeviceTemplate'> {
  return async (input) => g.templates.create(input.body, input.caller);
}
