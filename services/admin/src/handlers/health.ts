import { reply } from '@nap/bus';
import type { Bus, HandlerMap } from '@nap/bus';
import { gatherPlatformMetrics } from '@nap/runtime';
import { applicationsHealth, serverHealth, systemHealth } from '../domain/health';

/** `/health/*`, `/applications` reads and `/exporter_metrics`, from real data gathered over the bus. */
export function healthHandlers(bus: Bus, storeKind: string): HandlerMap {
  return {
    getApplicationsHealth: async () => {
      const results = await applicationsHealth(bus);
      return { results, total: results.length };
    },
    getApplicationHealth: async (input: { params: { name: string } }) => (await applicationsHealth(bus, input.params.name))[0],
    getApplications: async () => {
      const results = await applicationsHealth(bus);
      return { results, total: results.length };
    },
    getApplication: async (input: { params: { name: string } }) => (await applicationsHealth(bus, input.params.name))[0],
    getServerHealth: async () => serverHealth(bus, storeKind),
    getSystemHealth: async () => systemHealth(),
    getExporterMetrics: async () => {
      const { text, contentType } = await gatherPlatformMetrics(bus);
      return reply(200, text, contentType);
    },
  };
}
