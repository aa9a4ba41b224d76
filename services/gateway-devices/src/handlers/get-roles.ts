import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** Lists the roles (discovery cached until a refresh). */
export function getRoles(g: GatewayContext): Handler<'gateway-devices.getRoles'> {
  return async () => {
    const results = await g.runners.catalog.list('roles');
    return { results, total: results.length };
  };
}
