import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** Deletes a device group; its devices stay. */
export function deleteDeviceGroup(g: GatewayContext): Handler<'gateway-devices.deleteDeviceGroup'> {
  return async (input) => {
    await g.inventory.deleteGroup(input.body.name);
    return { status: 'success', message: `Device group "${input.body.name}" deleted` };
  };
}
