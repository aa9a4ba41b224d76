import { ServiceError } from '@nats-io/services';
import type { Service } from '@nats-io/services';

/**
 * The per-endpoint counters that `@nats-io/services` keeps and reports on `$SRV.STATS`.
 *
 * In @nats-io/services 3.0.0-25 `ServiceMsg.respondError()` only sets the error headers: it does
 * not count the error (only a handler that throws synchronously is counted), and processing time is
 * measured around the synchronous part of the handler only. Our handlers answer asynchronously, so
 * the bus updates these counters itself: one error per `respondError`, and the time from receipt
 * to answer. The counters live on the service's endpoint records (`handlers[i].stats`); they are not
 * part of the typed API, so they are found by shape and, if a future version changes them, the bus
 * keeps working with the framework's own (lower) counts.
 */
export interface EndpointCounters {
  countError(status: number, message: string): void;
  addProcessingNanos(nanos: number): void;
}

interface RawStats {
  num_requests: number;
  processing_time: number;
  average_processing_time: number;
  countError(err: Error): void;
}

function isRawStats(value: unknown): value is RawStats {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.num_requests === 'number' && typeof v.processing_time === 'number' && typeof v.countError === 'function';
}

const NO_COUNTERS: EndpointCounters = {
  countError: () => undefined,
  addProcessingNanos: () => undefined,
};

/** The counters of endpoint `name` of `service`, or no-op counters when they cannot be found. */
export function endpointCounters(service: Service, name: string): EndpointCounters {
  const handlers: unknown = (service as unknown as { handlers?: unknown }).handlers;
  if (!Array.isArray(handlers)) return NO_COUNTERS;
  const record: unknown = handlers.find((h: unknown) => typeof h === 'object' && h !== null && (h as { name?: unknown }).name === name);
  const stats: unknown = typeof record === 'object' && record !== null ? (record as { stats?: unknown }).stats : undefined;
  if (!isRawStats(stats)) return NO_COUNTERS;
  return {
    countError: (status, message) => stats.countError(new ServiceError(status, message)),
    addProcessingNanos: (nanos) => {
      stats.processing_time += nanos;
      stats.average_processing_time =
        stats.num_requests > 0 ? Math.round(stats.processing_time / stats.num_requests) : stats.processing_time;
    },
  };
}
