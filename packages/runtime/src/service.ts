import { randomUUID } from 'node:crypto';
import { RELEASE, systemSubject } from '@nap/contracts';
import type { ServiceName } from '@nap/contracts';
import { createBusClient, encodeJson, decodeJson } from '@nap/bus';
import type { Bus, BusClient, IdempotencyRecords, RegisteredService } from '@nap/bus';
import type { Store } from '@nap/store';
import { AggregatorRegistry } from 'prom-client';
import type { Logger, PlatformMetrics } from '@nap/telemetry';
import type { RuntimeConfig } from './config';

/** What every service factory receives from its composition root. */
export interface ServiceDeps {
  bus: Bus;
  store: Store;
  logger: Logger;
  metrics: PlatformMetrics;
  client: BusClient;
  config: RuntimeConfig;
  /** The service's Idempotency-Key records (in `store`); without them, `serve` ignores the header. */
  idempotency?: IdempotencyRecords;
}

/** A started service; `stop` stops intake and hands back in-flight work. */
export interface RunningService {
  readonly name: ServiceName;
  stop(): Promise<void>;
}

/** A service package's public door: `createXService(deps).start()`. */
export interface ServiceModule {
  start(): Promise<RunningService>;
}

export function createClient(bus: Bus, metrics?: PlatformMetrics): BusClient {
  return createBusClient(metrics ? { bus, metrics } : { bus });
}

/** Name under which each process offers its metrics registry on the bus. */
export const METRICS_SERVICE = 'nap-metrics';

type MetricsJson = Awaited<ReturnType<PlatformMetrics['registry']['getMetricsAsJSON']>>;

/**
 * Offers this process's registry on the bus so that `/exporter_metrics` can gather every process:
 * one `nap-metrics` service instance per process, with an endpoint on a subject of its own.
 */
export async function offerProcessMetrics(bus: Bus, metrics: PlatformMetrics, component: string): Promise<RegisteredService> {
  const instance = randomUUID();
  return bus.addService({
    name: METRICS_SERVICE,
    version: RELEASE,
    description: 'Metrics registry of one NAP process',
    metadata: { component },
    queue: `${METRICS_SERVICE}-${instance}`,
    endpoints: [
      {
        name: 'metrics',
        subject: systemSubject('metrics', instance),
        handler: (req) => {
          metrics.registry
            .getMetricsAsJSON()
            .then((json) => req.respond(encodeJson(json)))
            .catch((err: unknown) => req.respondError(500, err instanceof Error ? err.message : 'metrics failed', new Uint8Array(0)));
        },
      },
    ],
  });
}

/** Gathers every process's registry and renders one Prometheus text exposition. */
export async function gatherPlatformMetrics(
  bus: Bus,
  timeoutMs = 2_000,
): Promise<{ text: string; contentType: string; processes: number }> {
  const instances = await bus.discover(METRICS_SERVICE, 300);
  const results = await Promise.allSettled(
    instances.flatMap((info) =>
      info.endpoints.map(async (endpoint) =>
        decodeJson<MetricsJson>((await bus.request(endpoint.subject, new Uint8Array(0), { timeoutMs })).data),
      ),
    ),
  );
  const registries = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const aggregated = AggregatorRegistry.aggregate(registries);
  return { text: await aggregated.metrics(), contentType: aggregated.contentType, processes: registries.length };
}
