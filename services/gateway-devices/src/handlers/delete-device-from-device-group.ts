import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** Removes devices from a device group. */
export function deleteDeviceFromDeviceGroup(g: GatewayContext): Handler<'gateway-devices.deleteDeviceFromDeviceGroup'> {
  return async (input) => g.inventory.removeFromGroup(input.body.group, input.body.devices);
}
