import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** One device group with its members. */
export function getDeviceGroup(g: GatewayContext): Handler<'gateway-devices.getDeviceGroup'> {
  return async (input) => g.inventory.getGroup(input.body.name);
}
