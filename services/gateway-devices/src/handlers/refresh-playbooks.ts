import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** Rescans the playbooks and lists them. */
export function refreshPlaybooks(svc: GatewayDevicesContext): Handler<'gateway-devices.refreshPlaybooks'> {
  return async () => {
    const results = await svc.runners.catalog.refresh('playbooks');
    return { results, total: results.length };
  };
}
