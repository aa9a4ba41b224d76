import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** Lists the roles (discovery cached until a refresh). */
export function getRoles(svc: GatewayDevicesContext): Handler<'gateway-devices.getRoles'> {
  return async () => {
    const results = await svc.runners.catalog.list('roles');
    return { results, total: results.length };
  };
}
