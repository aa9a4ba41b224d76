import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** Rescans the playbooks and lists them. */
export function refreshPlaybooks(g: GatewayContext): Handler<'gateway-devices.refreshPlaybooks'> {
  return async () => {
    const results = await g.runners.catalog.refresh('playbooks');
    return { results, total: results.length };
  };
}
