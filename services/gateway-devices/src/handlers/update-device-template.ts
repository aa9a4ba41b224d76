import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** Replaces a device template. */
export function updateDeviceTemplate(svc: GatewayDevicesContext): Handler<'gateway-devices.updateDeviceTemplate'> {
  return async (input, ctx) => svc.templates.replace(input.params.id, input.body, input.caller, ctx);
}
