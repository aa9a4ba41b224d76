import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** Lists the collections (discovery cached until a refresh). */
export function getCollections(svc: GatewayDevicesContext): Handler<'gateway-devices.getCollections'> {
  return async () => {
    const results = await svc.runners.catalog.list('collections');
    return { results, total: results.length };
  };
}
