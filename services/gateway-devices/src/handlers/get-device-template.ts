import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** One device template, by id or name. */
export function getDeviceTemplate(svc: GatewayDevicesContext): Handler<'gateway-devices.getDeviceTemplate'> {
  return async (input) => svc.templates.get(input.params.id, input.caller);
}
