import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** The roles of a collection. */
export function getCollectionRoles(g: GatewayContext): Handler<'gateway-devices.getCollectionRoles'> {
  return async (input) => {
    const results = await g.runners.catalog.collectionItems(input.body.collection, 'roles');
    return { results, total: results.length };
  };
}
