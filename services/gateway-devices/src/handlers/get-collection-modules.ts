import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** The modules of a collection. */
export function getCollectionModules(svc: GatewayDevicesContext): Handler<'gateway-devices.getCollectionModules'> {
  return async (input) => {
    const results = await svc.runners.catalog.collectionItems(input.body.collection, 'modules');
    return { results, total: results.length };
  };
}
