import { rawReply } from '@nap/bus';
import type { Bus, HandlerMap } from '@nap/bus';
import { gatherPlatformMetrics } from '@nap/runtime';
import { serverHealth, systemHealth } from '../domain/health';

/** `/health/server`, `/health/system` and `/exporter_metrics` (applications' health: handlers/applications.ts). */
export function healthHandlers(bus: Bus, storeKind: string): HandlerMap<'admin'> {
  return {
    getServerHealth: async () => serverHealth(bus, storeKind),
    getSystemHealth: async () => systemHealth(),
    getExporterMetrics: async () => {
      const { text, contentType } = await gatherPlatformMetrics(bus);
      return rawReply(text, contentType);
    },
  };
}
