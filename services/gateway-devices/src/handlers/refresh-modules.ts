import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** Rescans the modules and lists them. */
export function refreshModules(svc: GatewayDevicesContext): Handler<'gateway-devices.refreshModules'> {
  return async () => {
    const results = await svc.runners.catalog.refresh('modules');
    return { results, total: results.length };
  };
}
