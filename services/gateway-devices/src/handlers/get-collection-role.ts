import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** One role of a collection, by its short or fully qualified name. */
export function getCollectionRole(g: GatewayContext): Handler<'gateway-devices.getCollectionRole'> {
  return async (input) => g.runners.catalog.collectionItem(input.body.collection, 'roles', input.body.name);
}
