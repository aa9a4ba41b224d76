import { rawReply } from '@nap/bus';
import type { Bus, HandlerMap } from '@nap/bus';
import type { ListQueryOptions } from '@nap/contracts';
import { gatherPlatformMetrics } from '@nap/runtime';
import { MAX_LIST_LIMIT, listDocuments, toListQuery } from '@nap/store';
import type { ListFields } from '@nap/store';
import { applicationHealth, applicationsHealth, healthStatus, serverHealth, systemHealth } from '../domain/health';

/** What the application lists filter and sort on. */
const APPLICATION_LIST_FIELDS: ListFields = { filter: ['id', 'name', 'state', 'version', 'type'], sort: ['id', 'name', 'state'], defaultSort: { name: 1 }, defaultLimit: MAX_LIST_LIMIT };

/** The health of every application, filtered and paged by the shared list options. */
async function applicationList(bus: Bus, query: ListQueryOptions) {
  const all = (await applicationsHealth(bus)).map((h) => ({ ...h, _id: h.id }));
  const { items, total } = listDocuments(all, toListQuery(query, APPLICATION_LIST_FIELDS));
  return { results: items.map(({ _id: _drop, ...health }) => health), total };
}

/** `/health/*`, `/applications` reads and `/exporter_metrics`, from real data gathered over the bus. */
export function healthHandlers(bus: Bus, storeKind: string, pingStore: () => Promise<void>): HandlerMap<'admin'> {
  return {
    getApplicationsHealth: async (input) => applicationList(bus, input.query),
    getApplicationHealth: async (input) => applicationHealth(bus, input.params.name),
    getApplications: async (input) => applicationList(bus, input.query),
    getApplication: async (input) => applicationHealth(bus, input.params.name),
    getServerHealth: async () => serverHealth(bus, storeKind),
    getSystemHealth: async () => systemHealth(),
    getHealthStatus: async () => healthStatus(bus, storeKind, pingStore),
    getExporterMetrics: async () => {
      const { text, contentType } = await gatherPlatformMetrics(bus);
      return rawReply(text, contentType);
    },
  };
}
