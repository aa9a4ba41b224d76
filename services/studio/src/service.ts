import { serve } from '@nap/bus';
import type { HandlerMap } from '@nap/bus';
import { RELEASE } from '@nap/contracts';
import type { RunningService, ServiceDeps, ServiceModule } from '@nap/runtime';

/**
 * The studio service: studio documents: workflows, templates, component groups, forms, transformations.
 * Every catalog operation of the service is registered; those without a handler answer 501 NOT_IMPLEMENTED.
 */
export function createStudioService(deps: ServiceDeps): ServiceModule {
  const { bus, logger, metrics, client } = deps;
  const handlers: HandlerMap = {};
  return {
    async start(): Promise<RunningService> {
      const registered = await serve({ bus, service: 'studio', version: RELEASE, logger, metrics, client, handlers });
      return { name: 'studio', stop: () => registered.stop() };
    },
  };
}
