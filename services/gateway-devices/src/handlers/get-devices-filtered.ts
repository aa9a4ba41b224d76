import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** Devices matching a filter, as `{ results, total }`. */
export function getDevicesFiltered(svc: GatewayDevicesContext): Handler<'gateway-devices.getDevicesFiltered'> {
  return async (input) => {
    const { filter, sort, skip = 0, limit = 0 } = input.body;
    const page = await svc.inventory.list({ filter, sort, skip, limit });
    return { results: page.items, total: page.total };
  };
}
