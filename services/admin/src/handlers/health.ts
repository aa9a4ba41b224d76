import type { Bus, HandlerMap } from '@nap/bus';
import { serverHealth, systemHealth } from '../domain/health';

/** `/health/server` and `/health/system`. */
export function healthHandlers(bus: Bus, storeKind: string): HandlerMap<'admin'> {
  return {
    getServerHealth: async () => serverHealth(bus, storeKind),
    getSystemHealth: async () => systemHealth(),
  };
}
