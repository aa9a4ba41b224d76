import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** Adds devices to a device group. */
export function addDeviceToDeviceGroup(g: GatewayContext): Handler<'gateway-devices.addDeviceToDeviceGroup'> {
  return async (input) => g.inventory.addToGroup(input.body.group, input.body.devices);
}
