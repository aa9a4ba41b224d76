import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** Rescans the collections and lists them. */
export function refreshCollections(g: GatewayContext): Handler<'gateway-devices.refreshCollections'> {
  return async () => {
    const results = await g.runners.catalog.refresh('collections');
    return { results, total: results.length };
  };
}
