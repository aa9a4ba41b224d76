import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** Lists the modules (discovery cached until a refresh). */
export function getModules(svc: GatewayDevicesContext): Handler<'gateway-devices.getModules'> {
  return async () => {
    const results = await svc.runners.catalog.list('modules');
    return { results, total: results.length };
  };
}
