import { serve } from '@nap/bus';
import type { HandlerMap } from '@nap/bus';
import { RELEASE } from '@nap/contracts';
import type { RunningService, ServiceDeps, ServiceModule } from '@nap/runtime';

/**
 * The gateway-devices service: the device gateway: inventory, SSH, NETCONF, HTTP, runners, device templates.
 * Every catalog operation of the service is registered; those without a handler answer 501 NOT_IMPLEMENTED.
 */
export function createGatewayDevicesService(deps: ServiceDeps): ServiceModule {
  const { bus, logger, metrics, client } = deps;
  const handlers: HandlerMap = {};
  return {
    async start(): Promise<RunningService> {
      const registered = await serve({ bus, service: 'gateway-devices', version: RELEASE, logger, metrics, client, handlers });
      return { name: 'gateway-devices', stop: () => registered.stop() };
    },
  };
}
