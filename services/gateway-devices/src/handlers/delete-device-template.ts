import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** Deletes a device template. */
export function deleteDeviceTemplate(g: GatewayContext): Handler<'gateway-devices.deleteDeviceTemplate'> {
  return async (input) => {
    const removed = await g.templates.delete(input.params.id, input.caller);
    return { status: 'success', message: `Device template "${removed.name}" deleted` };
  };
}
