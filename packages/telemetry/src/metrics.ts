import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { CounterConfiguration, GaugeConfiguration, HistogramConfiguration } from 'prom-client';

export { AggregatorRegistry, Counter, Gauge, Histogram, Registry } from 'prom-client';

const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** The metrics every process records; labels are bounded (operation ids, outcomes), never ids or hosts. */
export interface PlatformMetrics {
  registry: Registry;
  httpRequests: Counter<'operation' | 'method' | 'status'>;
  httpDuration: Histogram<'operation' | 'method' | 'status'>;
  busRequests: Counter<'operation' | 'outcome'>;
  busDuration: Histogram<'operation' | 'outcome'>;
  busClientRequests: Counter<'operation' | 'outcome'>;
  /** `nap_total_api_calls`: the original platform's gauge of API calls since start (what `httpRequests` counts, summed). */
  totalApiCalls: Gauge;
}

export interface MetricsOptions {
  /** Constant labels of the process (e.g. `{ component: 'gateway' }`). */
  defaultLabels?: Record<string, string>;
  /** Collect process metrics (cpu, memory, event loop lag); on by default. */
  processMetrics?: boolean;
  prefix?: string;
}

/** One registry per process, injected where metrics are recorded. */
export function createMetrics(options: MetricsOptions = {}): PlatformMetrics {
  const registry = new Registry();
  if (options.defaultLabels) registry.setDefaultLabels(options.defaultLabels);
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry, prefix: options.prefix ?? 'nap_' });
  return {
    registry,
    httpRequests: new Counter({
      name: 'nap_http_requests_total',
      help: 'HTTP requests answered by the gateway',
      labelNames: ['operation', 'method', 'status'],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'nap_http_request_duration_seconds',
      help: 'Time to answer an HTTP request',
      labelNames: ['operation', 'method', 'status'],
      buckets: DURATION_BUCKETS,
      registers: [registry],
    }),
    busRequests: new Counter({
      name: 'nap_bus_requests_total',
      help: 'Bus requests handled by services, by outcome (status code)',
      labelNames: ['operation', 'outcome'],
      registers: [registry],
    }),
    busDuration: new Histogram({
      name: 'nap_bus_request_duration_seconds',
      help: 'Time a service took to handle a bus request',
      labelNames: ['operation', 'outcome'],
      buckets: DURATION_BUCKETS,
      registers: [registry],
    }),
    busClientRequests: new Counter({
      name: 'nap_bus_client_requests_total',
      help: 'Bus requests sent, by outcome',
      labelNames: ['operation', 'outcome'],
      registers: [registry],
    }),
    totalApiCalls: new Gauge({
      name: 'nap_total_api_calls',
      help: "Total count of API calls since the gateway started (the original platform's iap_total_api_calls; nap_http_requests_total has them by operation)",
      registers: [registry],
      async collect() {
        const { values } = (await registry.getSingleMetric('nap_http_requests_total')?.get()) ?? { values: [] };
        this.set(values.reduce((n, v) => n + v.value, 0));
      },
    }),
  };
}

/**
 * The platform's own metrics a service adds to its process registry (sessions, jobs, device
 * sessions, MOP runs, adapters): each is made once per registry, so a second replica in the same
 * process (tests) reuses it. Gauges read at scrape time from a store shared by every replica use
 * `aggregator: 'max'`, so `/exporter_metrics` does not add up the same count once per replica.
 */
export function gaugeOnce<L extends string>(registry: Registry, config: Omit<GaugeConfiguration<L>, 'registers'>): Gauge<L> {
  const found = registry.getSingleMetric(config.name);
  if (found instanceof Gauge) return found;
  return new Gauge<L>({ ...config, registers: [registry] });
}

/** A counter made once per registry (see {@link gaugeOnce}). */
export function counterOnce<L extends string>(registry: Registry, config: Omit<CounterConfiguration<L>, 'registers'>): Counter<L> {
  const found = registry.getSingleMetric(config.name);
  if (found instanceof Counter) return found;
  return new Counter<L>({ ...config, registers: [registry] });
}

/** A histogram made once per registry (see {@link gaugeOnce}); durations in seconds. */
export function histogramOnce<L extends string>(registry: Registry, config: Omit<HistogramConfiguration<L>, 'registers'>): Histogram<L> {
  const found = registry.getSingleMetric(config.name);
  if (found instanceof Histogram) return found;
  return new Histogram<L>({ ...config, registers: [registry] });
}

/** Where each registry's `nap_retention_next_run_timestamp_seconds` reads its kinds from. */
const retentionDue = new WeakMap<Registry, Map<string, () => Promise<number | undefined>>>();

/**
 * Adds `kind` (`jobs`, `audit`) to `nap_retention_next_run_timestamp_seconds{kind}`: when that
 * retention is next due, epoch seconds, read at scrape time. A due time moves on only once a run
 * succeeded, so one well in the past says the retention fails or does not run. One gauge per
 * registry whatever the services that report to it (the standalone process holds several);
 * replicas read the same due time or their own, and aggregate by `max`.
 */
export function reportRetentionDue(registry: Registry, kind: string, nextRunAt: () => Promise<number | undefined>): void {
  let sources = retentionDue.get(registry);
  if (sources === undefined) {
    const kinds = new Map<string, () => Promise<number | undefined>>();
    sources = kinds;
    retentionDue.set(registry, kinds);
    gaugeOnce(registry, {
      name: 'nap_retention_next_run_timestamp_seconds',
      help: 'When each retention (jobs, audit) is next due, epoch seconds; it moves on only after a run succeeded',
      labelNames: ['kind'],
      aggregator: 'max',
      async collect() {
        const read = await Promise.all([...kinds].map(async ([name, next]) => [name, await next().catch(() => undefined)] as const));
        this.reset();
        for (const [name, at] of read) if (at !== undefined) this.set({ kind: name }, at / 1000);
      },
    });
  }
  sources.set(kind, nextRunAt);
}
