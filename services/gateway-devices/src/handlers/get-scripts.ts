import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** Lists the scripts (discovery cached until a refresh). */
export function getScripts(svc: GatewayDevicesContext): Handler<'gateway-devices.getScripts'> {
  return async () => {
    const results = await svc.runners.catalog.list('scripts');
    return { results, total: results.length };
  };
}
