import type { Handler } from '@nap/bus';
import { writeDeviceView } from '../context';
import type { GatewayDevicesContext } from '../context';

/** Updates the variables (and, when given, the groups) of a device. */
export function updateDevice(svc: GatewayDevicesContext): Handler<'gateway-devices.updateDevice'> {
  return async (input) => writeDeviceView(svc, input.body.name, input.body, 'update', input.caller);
}
