import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** One module of a collection, by its short or fully qualified name. */
export function getCollectionModule(g: GatewayContext): Handler<'gateway-devices.getCollectionModule'> {
  return async (input) => g.runners.catalog.collectionItem(input.body.collection, 'modules', input.body.name);
}
