import { rawReply } from '@nap/bus';
import type { Bus, HandlerMap } from '@nap/bus';
import { gatherPlatformMetrics } from '@nap/runtime';
import { applicationHealth, applicationsHealth, serverHealth, systemHealth } from '../domain/health';

/** `/health/*`, `/applications` reads and `/exporter_metrics`, from real data gathered over the bus. */
export function healthHandlers(bus: Bus, storeKind: string): HandlerMap<'admin'> {
  return {
    getApplicationsHealth: async () => {
      const results = await applicationsHealth(bus);
      return { results, total: results.length };
    },
    getApplicationHealth: async (input) => applicationHealth(bus, input.params.name),
    getApplications: async () => {
      const results = await applicationsHealth(bus);
      return { results, total: results.length };
    },
    getApplication: async (input) => applicationHealth(bus, input.params.name),
    getServerHealth: async () => serverHealth(bus, storeKind),
    getSystemHealth: async () => systemHealth(),
    getExporterMetrics: async () => {
      const { text, contentType } = await gatherPlatformMetrics(bus);
      return rawReply(text, contentType);
    },
  };
}
