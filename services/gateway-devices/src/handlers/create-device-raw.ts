import type { Handler } from '@nap/bus';
import { writeDeviceView } from '../context';
import type { GatewayDevicesContext } from '../context';

/** Creates a device with gateway variables as given (secrets sealed). */
export function createDeviceRaw(svc: GatewayDevicesContext): Handler<'gateway-devices.createDeviceRaw'> {
  return async (input) => writeDeviceView(svc, input.body.name, input.body, 'create', input.caller);
}
