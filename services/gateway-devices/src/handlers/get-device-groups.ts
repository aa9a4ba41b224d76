import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** Every device group with its members. */
export function getDeviceGroups(g: GatewayContext): Handler<'gateway-devices.getDeviceGroups'> {
  return async () => {
    const results = await g.inventory.listGroups();
    return { results, total: results.length };
  };
}
