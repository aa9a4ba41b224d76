import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** Replaces a device template. */
export function updateDeviceTemplate(g: GatewayContext): Handler<'gateway-devices.updateDeviceTemplate'> {
  return async (input) => g.templates.replace(input.params.id, input.body, input.caller);
}
