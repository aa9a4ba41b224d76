import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** Every device group with its members. */
export function getDeviceGroups(svc: GatewayDevicesContext): Handler<'gateway-devices.getDeviceGroups'> {
  return async () => {
    const results = await svc.inventory.listGroups();
    return { results, total: results.length };
  };
}
