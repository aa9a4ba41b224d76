import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** One module of a collection, by its short or fully qualified name. */
export function getCollectionModule(svc: GatewayDevicesContext): Handler<'gateway-devices.getCollectionModule'> {
  return async (input) => svc.runners.catalog.collectionItem(input.body.collection, 'modules', input.body.name);
}
