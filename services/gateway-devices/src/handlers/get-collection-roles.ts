import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** The roles of a collection. */
export function getCollectionRoles(svc: GatewayDevicesContext): Handler<'gateway-devices.getCollectionRoles'> {
  return async (input) => {
    const results = await svc.runners.catalog.collectionItems(input.body.collection, 'roles');
    return { results, total: results.length };
  };
}
