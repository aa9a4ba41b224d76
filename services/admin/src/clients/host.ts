/** What the answering process and its host report of themselves: `/health/server` and `/health/system`. */

import os from 'node:os';
import { RELEASE } from '@nap/contracts';
import type { Bus } from '@nap/bus';
import type { DiskSpace } from '@nap/store';

/** `/health/server`: this platform's version and release, and the answering process. */
export function serverHealth(bus: Bus, storeKind: string, disk: DiskSpace | undefined) {
  const memory = process.memoryUsage();
  return {
    version: RELEASE,
    release: RELEASE,
    status: bus.isConnected() ? ('running' as const) : ('degraded' as const),
    node: process.version,
    pid: process.pid,
    hostname: os.hostname(),
    uptime: process.uptime(),
    bus: { kind: bus.kind, connected: bus.isConnected() },
    store: { kind: storeKind, ...(disk !== undefined ? { disk } : {}) },
    memory: { rss: memory.rss, heapTotal: memory.heapTotal, heapUsed: memory.heapUsed, external: memory.external },
    cpu: process.cpuUsage(),
  };
}

/** `/health/system`: the host. */
export function systemHealth() {
  const cpus = os.cpus();
  return {
    arch: os.arch(),
    platform: os.platform(),
    release: os.release(),
    hostname: os.hostname(),
    uptime: os.uptime(),
    freemem: os.freemem(),
    totalmem: os.totalmem(),
    loadavg: os.loadavg(),
    cpus: cpus.map((c) => ({ model: c.model, speed: c.speed, times: c.times })),
  };
}
