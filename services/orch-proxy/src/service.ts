import { serve } from '@nap/bus';
import { RELEASE } from '@nap/contracts';
import type { RunningService, ServiceDeps, ServiceModule } from '@nap/runtime';
import { AdapterCache } from './clients/adapter-cache';
import type { OrchProxyContext } from './context';
import { followAdapterChanges } from './engine/adapter-changes';
import { orchProxyHandlers } from './handlers';

/**
 * The orch-proxy service: REST actions, REST queries and leaf setting on an NSO orchestrator,
 * through admin's bus-only `admin.callAdapter` (admin adds the credentials; none reaches this
 * service). Adapter records are cached without credentials and dropped on admin's `adapterChanged`.
 */
export function createOrchProxyService(deps: ServiceDeps): ServiceModule {
  const { bus, logger, metrics, client } = deps;
  const svc: OrchProxyContext = { adapters: new AdapterCache() };
  return {
    async start(): Promise<RunningService> {
      const events = await followAdapterChanges(bus, svc.adapters);
      const registered = await serve({
        bus,
        service: 'orch-proxy',
        version: RELEASE,
        logger,
        metrics,
        client,
        idempotency: deps.idempotency,
        handlers: orchProxyHandlers(svc),
      });
      return {
        name: 'orch-proxy',
        stop: async () => {
          await registered.stop();
          await events.unsubscribe();
        },
      };
    },
  };
}
