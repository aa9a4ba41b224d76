import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** One device group with its members. */
export function getDeviceGroup(svc: GatewayDevicesContext): Handler<'gateway-devices.getDeviceGroup'> {
  return async (input) => svc.inventory.getGroup(input.body.name);
}
