import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** `POST /gw/getInventoryGroups`: groups named by devices and device groups, with their members. */
export function getInventoryGroups(svc: GatewayDevicesContext): Handler<'gateway-devices.getInventoryGroups'> {
  return async (input) => {
    const all = await svc.inventory.listGroups();
    const skip = input.body.skip ?? 0;
    const limit = input.body.limit ?? 0;
    return { results: all.slice(skip, limit > 0 ? skip + limit : undefined), total: all.length };
  };
}
