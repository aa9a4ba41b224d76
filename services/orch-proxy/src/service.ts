import { decodeJson, serve } from '@nap/bus';
import type { HandlerMap, Subscription } from '@nap/bus';
import { EVENT_SCHEMAS, RELEASE, eventPattern, isValid } from '@nap/contracts';
import type { RunningService, ServiceDeps, ServiceModule } from '@nap/runtime';
import { AdapterCache } from './domain/adapter-cache';
import { createConnect } from './domain/connect';
import { restAction } from './handlers/rest-action';
import { restQuery } from './handlers/rest-query';
import { setLeaf } from './handlers/set-leaf';

/**
 * The orch-proxy service: REST actions, REST queries and leaf setting on an NSO orchestrator,
 * through admin's bus-only `admin.callAdapter` (admin adds the credentials; none reaches this
 * service). Adapter records are cached without credentials and dropped on admin's `adapterChanged`.
 */
export function createOrchProxyService(deps: ServiceDeps): ServiceModule {
  const { bus, logger, metrics, client } = deps;
  const cache = new AdapterCache();
  const connect = createConnect(cache);
  const handlers: HandlerMap<'orch-proxy'> = {
    restAction: restAction(connect),
    restQuery: restQuery(connect),
    setLeaf: setLeaf(connect),
  };
  return {
    async start(): Promise<RunningService> {
      const events: Subscription = await bus.consumeEvents(
        eventPattern('admin', 'adapter'),
        (event) => {
          let payload: unknown;
          try {
            payload = decodeJson(event.data);
          } catch {
            payload = undefined;
          }
          if (isValid(EVENT_SCHEMAS.admin.adapter.adapterChanged, payload)) cache.drop(payload.name);
          else cache.clear();
        },
        { deliver: 'new' },
      );
      const registered = await serve({
        bus,
        service: 'orch-proxy',
        version: RELEASE,
        logger,
        metrics,
        client,
        idempotency: deps.idempotency,
        handlers,
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
