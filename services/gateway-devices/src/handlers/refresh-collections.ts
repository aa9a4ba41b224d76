import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** Rescans the collections and lists them. */
export function refreshCollections(svc: GatewayDevicesContext): Handler<'gateway-devices.refreshCollections'> {
  return async () => {
    const results = await svc.runners.catalog.refresh('collections');
    return { results, total: results.length };
  };
}
