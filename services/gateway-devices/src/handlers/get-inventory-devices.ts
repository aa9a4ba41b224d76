import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** `POST /gw/getInventoryDevices`: a page of devices, filtered and sorted; `skip` and `limit` echo the request. */
export function getInventoryDevices(svc: GatewayDevicesContext): Handler<'gateway-devices.getInventoryDevices'> {
  return async (input) => {
    const { filter, sort, skip = 0, limit = 0 } = input.body;
    const page = await svc.inventory.list({ filter, sort, skip, limit });
    return { items: page.items, total: page.total, skip, limit };
  };
}
