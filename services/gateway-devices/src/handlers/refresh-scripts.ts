import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** Rescans the scripts and lists them. */
export function refreshScripts(svc: GatewayDevicesContext): Handler<'gateway-devices.refreshScripts'> {
  return async () => {
    const results = await svc.runners.catalog.refresh('scripts');
    return { results, total: results.length };
  };
}
