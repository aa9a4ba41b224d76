import { serve } from '@nap/bus';
import type { HandlerMap } from '@nap/bus';
import { RELEASE } from '@nap/contracts';
import type { RunningService, ServiceDeps, ServiceModule } from '@nap/runtime';

/**
 * The orch-proxy service: the orchestrator proxy.
 * Every catalog operation of the service is registered; those without a handler answer 501 NOT_IMPLEMENTED.
 */
export function createOrchProxyService(deps: ServiceDeps): ServiceModule {
  const { bus, logger, metrics, client } = deps;
  const handlers: HandlerMap<'orch-proxy'> = {};
  return {
    async start(): Promise<RunningService> {
      const registered = await serve({ bus, service: 'orch-proxy', version: RELEASE, logger, metrics, client, idempotency: deps.idempotency, handlers });
      return { name: 'orch-proxy', stop: () => registered.stop() };
    },
  };
}
