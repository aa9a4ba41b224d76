import { serve } from '@nap/bus';
import type { HandlerMap } from '@nap/bus';
import { RELEASE } from '@nap/contracts';
import type { RunningService, ServiceDeps, ServiceModule } from '@nap/runtime';

/**
 * The workflow service: the workflow engine: jobs, the operations manager, the automation catalog.
 * Every catalog operation of the service is registered; those without a handler answer 501 NOT_IMPLEMENTED.
 */
export function createWorkflowService(deps: ServiceDeps): ServiceModule {
  const { bus, logger, metrics, client } = deps;
  const handlers: HandlerMap = {};
  return {
    async start(): Promise<RunningService> {
      const registered = await serve({ bus, service: 'workflow', version: RELEASE, logger, metrics, client, handlers });
      return { name: 'workflow', stop: () => registered.stop() };
    },
  };
}
