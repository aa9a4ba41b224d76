import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** Lists the scripts (discovery cached until a refresh). */
export function getScripts(g: GatewayContext): Handler<'gateway-devices.getScripts'> {
  return async () => {
    const results = await g.runners.catalog.list('scripts');
    return { results, total: results.length };
  };
}
