import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export { Registry } from 'prom-client';

const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** The metrics every process records; labels are bounded (operation ids, outcomes), never ids or hosts. */
export interface PlatformMetrics {
  registry: Registry;
  httpRequests: Counter<'operation' | 'method' | 'status'>;
  httpDuration: Histogram<'operation' | 'method' | 'status'>;
  busRequests: Counter<'operation' | 'outcome'>;
  busDuration: Histogram<'operation' | 'outcome'>;
  busClientRequests: Counter<'operation' | 'outcome'>;
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
    httpRequests: new Counter({ name: 'nap_http_requests_total', help: 'HTTP requests answered by the gateway', labelNames: ['operation', 'method', 'status'], registers: [registry] }),
    httpDuration: new Histogram({ name: 'nap_http_request_duration_seconds', help: 'Time to answer an HTTP request', labelNames: ['operation', 'method', 'status'], buckets: DURATION_BUCKETS, registers: [registry] }),
    busRequests: new Counter({ name: 'nap_bus_requests_total', help: 'Bus requests handled by services, by outcome (status code)', labelNames: ['operation', 'outcome'], registers: [registry] }),
    busDuration: new Histogram({ name: 'nap_bus_request_duration_seconds', help: 'Time a service took to handle a bus request', labelNames: ['operation', 'outcome'], buckets: DURATION_BUCKETS, registers: [registry] }),
    busClientRequests: new Counter({ name: 'nap_bus_client_requests_total', help: 'Bus requests sent, by outcome', labelNames: ['operation', 'outcome'], registers: [registry] }),
  };
}
