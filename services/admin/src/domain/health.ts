import os from 'node:os';
import { RELEASE } from '@nap/contracts';
import type { Bus } from '@nap/bus';

/** `/health/server`: this platform's version and release, and the answering process. */
export function serverHealth(bus: Bus, storeKind: string) {
  const memory = process.memoryUsage();
  return {
    version: RELEASE,
    release: RELEASE,
    status: bus.isConnected() ? 'running' : 'degraded',
    node: process.version,
    pid: process.pid,
    hostname: os.hostname(),
    uptime: process.uptime(),
    bus: { kind: bus.kind, connected: bus.isConnected() },
    store: { kind: storeKind },
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

/**
 * `/health/status`: one look at what the platform needs: the bus, this service's store and every
 * application. `running` when all answer, `degraded` otherwise.
 */
export async function healthStatus(
  bus: Bus,
  storeKind: string,
  pingStore: () => Promise<void>,
  applicationsHealth: () => Promise<{ name: string; state: string }[]>,
) {
  const storeUp = await pingStore().then(
    () => true,
    () => false,
  );
  const applications = bus.isConnected() ? await applicationsHealth() : [];
  const appsRunning = applications.length > 0 && applications.every((a) => a.state === 'RUNNING');
  const running = bus.isConnected() && storeUp && appsRunning;
  return {
    status: running ? ('running' as const) : ('degraded' as const),
    timestamp: Date.now(),
    services: [
      { service: `bus (${bus.kind})`, status: bus.isConnected() ? 'running' : 'stopped' },
      { service: `store (${storeKind})`, status: storeUp ? 'running' : 'stopped' },
    ],
    apps: appsRunning ? 'running' : 'degraded',
    applications: applications.map((a) => ({ name: a.name, state: a.state })),
  };
}
