import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** Rescans the scripts and lists them. */
export function refreshScripts(g: GatewayContext): Handler<'gateway-devices.refreshScripts'> {
  return async () => {
    const results = await g.runners.catalog.refresh('scripts');
    return { results, total: results.length };
  };
}
