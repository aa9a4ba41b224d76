import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** Lists the collections (discovery cached until a refresh). */
export function getCollections(g: GatewayContext): Handler<'gateway-devices.getCollections'> {
  return async () => {
    const results = await g.runners.catalog.list('collections');
    return { results, total: results.length };
  };
}
