import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** Lists the infrastructure-as-code modules (discovery cached until a refresh). */
export function getIacs(g: GatewayContext): Handler<'gateway-devices.getIacs'> {
  return async () => {
    const results = await g.runners.catalog.list('iac');
    return { results, total: results.length };
  };
}
