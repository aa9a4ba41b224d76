import type { Handler } from '@nap/bus';
import { deviceDetails } from '../context';
import type { GatewayDevicesContext } from '../context';

/** The stored records of the named devices (all when no names are given). */
export function getDevicesDetailsRaw(svc: GatewayDevicesContext): Handler<'gateway-devices.getDevicesDetailsRaw'> {
  return async (input) => {
    const docs = await svc.inventory.listByNames(input.body.names);
    const results = await Promise.all(docs.map((d) => deviceDetails(svc, d)));
    return { results, total: results.length };
  };
}
