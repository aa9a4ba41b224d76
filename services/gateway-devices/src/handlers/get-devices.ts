import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** A page of devices as `{ results, total }`. */
export function getDevices(svc: GatewayDevicesContext): Handler<'gateway-devices.getDevices'> {
  return async (input) => {
    const page = await svc.inventory.list({ skip: input.body.skip ?? 0, limit: input.body.limit ?? 0 });
    return { results: page.items, total: page.total };
  };
}
