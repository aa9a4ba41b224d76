import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** Lists the infrastructure-as-code modules (discovery cached until a refresh). */
export function getIacs(svc: GatewayDevicesContext): Handler<'gateway-devices.getIacs'> {
  return async () => {
    const results = await svc.runners.catalog.list('iac');
    return { results, total: results.length };
  };
}
