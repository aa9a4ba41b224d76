import type { HandlerMap } from '@nap/bus';
import type { AdapterDomain } from '../domain/adapters';
import type { IntegrationDomain } from '../domain/integrations';
import { runTaskCall } from '../domain/task-calls';

/** Bus-only calls of other services to outside systems: admin adds the credentials, no secret crosses the bus. */
export function outsideCallHandlers(integrations: IntegrationDomain, adapters: AdapterDomain): HandlerMap<'admin'> {
  return {
    callAdapter: async (input) => {
      const { adapter, ...request } = input.body;
      return adapters.call(adapter, request);
    },
    runTask: async (input) => ({ result: await runTaskCall(integrations, adapters, input.body) }),
  };
}
