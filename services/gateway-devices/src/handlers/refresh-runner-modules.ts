import type { Handler } from '@nap/bus';
import type { GatewayContext } from '../context';

/** Rescans the runner modules and lists them. */
export function refreshRunnerModules(g: GatewayContext): Handler<'gateway-devices.refreshRunnerModules'> {
  return async () => {
    const results = await g.runners.catalog.refresh('runnerModules');
    return { results, total: results.length };
  };
}
