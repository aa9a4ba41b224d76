import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** One role of a collection, by its short or fully qualified name. */
export function getCollectionRole(svc: GatewayDevicesContext): Handler<'gateway-devices.getCollectionRole'> {
  return async (input) => svc.runners.catalog.collectionItem(input.body.collection, 'roles', input.body.name);
}
