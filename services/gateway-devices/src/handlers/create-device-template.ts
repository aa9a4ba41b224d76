import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** Creates a device template. */
export function createDeviceTemplate(svc: GatewayDevicesContext): Handler<'gateway-devices.createDeviceTemplate'> {
  return async (input) => svc.templates.create(input.body, input.caller);
}
