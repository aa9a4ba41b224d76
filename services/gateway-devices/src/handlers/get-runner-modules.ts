import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** Lists the runner modules (discovery cached until a refresh). */
export function getRunnerModules(g: GatewayContext): Handler<'gateway-devices.getRunnerModules'> {
  return async () => {
    const results = await g.runners.catalog.list('runnerModules');
    return { results, total: results.length };
  };
}
