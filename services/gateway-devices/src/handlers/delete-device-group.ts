import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** Deletes a device group; its devices stay. */
export function deleteDeviceGroup(svc: GatewayDevicesContext): Handler<'gateway-devices.deleteDeviceGroup'> {
  return async (input) => {
    await svc.inventory.deleteGroup(input.body.name);
    return { status: 'success', message: `Device group "${input.body.name}" deleted` };
  };
}
