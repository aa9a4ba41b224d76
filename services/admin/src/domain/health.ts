import os from 'node:os';
import { AppError, RELEASE, SERVICE_NAMES, isServiceName } from '@nap/contracts';
import type { Bus, ServiceInfo, ServiceStats } from '@nap/bus';

export type InstanceHealth = {
  id: string;
  version: string;
  started: string;
  uptimeSeconds: number;
  requests: number;
  errors: number;
  /** Mean handling time over all endpoints, ms. */
  averageProcessingMs: number;
};

/** Health of one service; a type (not an interface) so that it is a health record of the catalog, `Record<string, unknown>`. */
export type ApplicationHealth = {
  id: string;
  name: string;
  type: 'Application';
  /** RUNNING when at least one instance answers discovery, STOPPED otherwise. */
  state: 'RUNNING' | 'STOPPED';
  version: string | null;
  instances: InstanceHealth[];
  endpoints: number;
};

/** Health of the six services, from `$SRV.INFO` and `$SRV.STATS` of every running instance. */
export async function applicationsHealth(bus: Bus, only?: string): Promise<ApplicationHealth[]> {
  if (only !== undefined && !isServiceName(only)) throw new AppError('NOT_FOUND', `No application named "${only}"; applications are ${SERVICE_NAMES.join(', ')}`);
  const [infos, stats] = await Promise.all([bus.discover(only, 400), bus.stats(only, 400)]);
  const names = only ? [only] : [...SERVICE_NAMES];
  return names.map((name) => toHealth(name, infos.filter((i) => i.name === name), stats.filter((s) => s.name === name)));
}

/** Health of one service by name; 404 `NOT_FOUND` when no service has that name. */
export async function applicationHealth(bus: Bus, name: string): Promise<ApplicationHealth> {
  const [health] = await applicationsHealth(bus, name);
  if (health === undefined) throw new AppError('NOT_FOUND', `No application named "${name}"`);
  return health;
}

function toHealth(name: string, infos: ServiceInfo[], stats: ServiceStats[]): ApplicationHealth {
  const instances = stats.map((s) => {
    const requests = s.endpoints.reduce((n, e) => n + e.num_requests, 0);
    const processingNs = s.endpoints.reduce((n, e) => n + e.processing_time, 0);
    return {
      id: s.id,
      version: s.version,
      started: s.started,
      uptimeSeconds: Math.max(0, Math.round((Date.now() - Date.parse(s.started)) / 1000)),
      requests,
      errors: s.endpoints.reduce((n, e) => n + e.num_errors, 0),
      averageProcessingMs: requests ? processingNs / requests / 1e6 : 0,
    };
  });
  return {
    id: name,
    name,
    type: 'Application',
    state: infos.length > 0 ? 'RUNNING' : 'STOPPED',
    version: infos[0]?.version ?? null,
    instances,
    endpoints: infos[0]?.endpoints.length ?? 0,
  };
}

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
export async function healthStatus(bus: Bus, storeKind: string, pingStore: () => Promise<void>) {
  const storeUp = await pingStore().then(
    () => true,
    () => false,
  );
  const applications = bus.isConnected() ? await applicationsHealth(bus) : [];
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
