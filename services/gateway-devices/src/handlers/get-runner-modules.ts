import type { Handler } from '@nap/bus';
import type { GatewayDevicesContext } from '../context';

/** Lists the runner modules (discovery cached until a refresh). */
export function getRunnerModules(svc: GatewayDevicesContext): Handler<'gateway-devices.getRunnerModules'> {
  return async () => {
    const results = await svc.runners.catalog.list('runnerModules');
    return { results, total: results.length };
  };
}
