import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** Lists the playbooks (discovery cached until a refresh). */
export function getPlaybooks(svc: GatewayDevicesContext): Handler<'gateway-devices.getPlaybooks'> {
  return async () => {
    const results = await svc.runners.catalog.list('playbooks');
    return { results, total: results.length };
  };
}
