import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** The stored records of the named devices (all when no names are given). */
export function getDevicesDetailsRaw(g: GatewayContext): Handler<'gateway-devices.getDevicesDetailsRaw'> {
  return async (input) => {
    const docs = await g.inventory.listByNames(input.body.names);
    const results = await Promise.all(docs.map((d) => g.devices.details(d)));
    return { results, total: results.length };
  };
}
