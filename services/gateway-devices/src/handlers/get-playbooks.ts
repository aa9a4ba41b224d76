import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** Lists the playbooks (discovery cached until a refresh). */
export function getPlaybooks(g: GatewayContext): Handler<'gateway-devices.getPlaybooks'> {
  return async () => {
    const results = await g.runners.catalog.list('playbooks');
    return { results, total: results.length };
  };
}
