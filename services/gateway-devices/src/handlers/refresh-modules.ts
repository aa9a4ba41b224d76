import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** Rescans the modules and lists them. */
export function refreshModules(g: GatewayContext): Handler<'gateway-devices.refreshModules'> {
  return async () => {
    const results = await g.runners.catalog.refresh('modules');
    return { results, total: results.length };
  };
}
