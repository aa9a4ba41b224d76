import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** Lists the modules (discovery cached until a refresh). */
export function getModules(g: GatewayContext): Handler<'gateway-devices.getModules'> {
  return async () => {
    const results = await g.runners.catalog.list('modules');
    return { results, total: results.length };
  };
}
