import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** Rescans the roles and lists them. */
export function refreshRoles(g: GatewayContext): Handler<'gateway-devices.refreshRoles'> {
  return async () => {
    const results = await g.runners.catalog.refresh('roles');
    return { results, total: results.length };
  };
}
