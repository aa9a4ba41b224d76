import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** Removes devices from a device group. */
export function deleteDeviceFromDeviceGroup(svc: GatewayDevicesContext): Handler<'gateway-devices.deleteDeviceFromDeviceGroup'> {
  return async (input) => svc.inventory.removeFromGroup(input.body.group, input.body.devices);
}
