import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** The modules of a collection. */
export function getCollectionModules(g: GatewayContext): Handler<'gateway-devices.getCollectionModules'> {
  return async (input) => {
    const results = await g.runners.catalog.collectionItems(input.body.collection, 'modules');
    return { results, total: results.length };
  };
}
