import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** Rescans the runner modules and lists them. */
export function refreshRunnerModules(svc: GatewayDevicesContext): Handler<'gateway-devices.refreshRunnerModules'> {
  return async () => {
    const results = await svc.runners.catalog.refresh('runnerModules');
    return { results, total: results.length };
  };
}
