import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** One device template, by id or name. */
export function getDeviceTemplate(g: GatewayContext): Handler<'gateway-devices.getDeviceTemplate'> {
  return async (input) => g.templates.get(input.params.id, input.caller);
}
