import { ADAPTER_TYPES } from '@nap/contracts';
import type { HandlerMap } from '@nap/bus';
import type { AdapterDomain } from '../domain/adapters';

/** `/adapters*`, `/adapter-models/types`, `/schema/adapters/:name` and `/health/adapters*`. */
export function adapterHandlers(domain: AdapterDomain): HandlerMap<'admin'> {
  return {
    createAdapter: async (input, ctx) => domain.create(input.body.properties, ctx.caller.username, 'created'),
    importAdapter: async (input, ctx) => domain.create(input.body.properties, ctx.caller.username, 'imported'),
    updateAdapter: async (input, ctx) => domain.update(input.params.name, { data: input.body.properties }, ctx.caller.username),
    updateAdapterProperties: async (input, ctx) =>
      domain.update(input.params.name, { settings: input.body.properties }, ctx.caller.username),
    getAdapter: async (input) => domain.get(input.params.name),
    getAdapters: async (input) => domain.list(input.query),
    exportAdapter: async (input) => domain.exportData(input.params.name),
    deleteAdapter: async (input) => {
      await domain.remove(input.params.name);
      return { status: 'success', message: `Adapter "${input.params.name}" deleted` };
    },
    getAdapterChangelogs: async (input) => domain.changelogs(input.params.name),
    updateAdapterLogging: async (input) =>
      domain.setLogLevel(input.params.name, input.body.properties.level, input.body.properties.transport),
    getBrokerMap: async () => domain.brokerMap(),
    getAdapterModelTypes: async () => ({ results: [...ADAPTER_TYPES], total: ADAPTER_TYPES.length }),
    getAdapterSchema: async (input) => domain.settingsSchema(input.params.name),
    startAdapter: async (input) => domain.start(input.params.name),
    stopAdapter: async (input) => domain.stop(input.params.name),
    restartAdapter: async (input) => domain.restart(input.params.name),
    getAdapterHealth: async (input) => domain.health(input.params.name),
    getAdaptersHealth: async (input) => domain.healthAll(input.query),
  };
}
