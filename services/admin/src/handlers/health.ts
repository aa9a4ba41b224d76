import { rawReply } from '@nap/bus';
import type { Bus, HandlerMap } from '@nap/bus';
import { gatherPlatformMetrics } from '@nap/runtime';
import { healthStatus, serverHealth, systemHealth } from '../domain/health';

/** `/health/server`, `/health/system`, `/health/status` and `/exporter_metrics` (applications and their health: handlers/applications.ts). */
export function healthHandlers(
  bus: Bus,
  storeKind: string,
  pingStore: () => Promise<void>,
  applications: () => Promise<{ name: string; state: string }[]>,
): HandlerMap<'admin'> {
  return {
    getServerHealth: async () => serverHealth(bus, storeKind),
    getSystemHealth: async () => systemHealth(),
    getHealthStatus: async () => healthStatus(bus, storeKind, pingStore, applications),
    getExporterMetrics: async () => {
      const { text, contentType } = await gatherPlatformMetrics(bus);
      return rawReply(text, contentType);
    },
  };
}
