import type { Logger, PlatformMetrics } from '@nap/telemetry';
import type { OperationExchange } from './exchange';

/** The status counted for a request whose client left before any answer was sent (nginx's "client closed request"). */
export const CLIENT_CLOSED = 499;

/**
 * Counts and times the request of an operation once its connection is done with it
 * (`nap_http_requests_total`, `nap_http_request_duration_seconds` by operation, method and status):
 * an answer sent, an event stream its client left, or a request whose client left before any
 * answer ({@link CLIENT_CLOSED}). At debug level (NAP_LOG_LEVEL=debug) it logs one line per
 * request: never the query string, which may hold ?token=.
 */
export function observe(
  metrics: PlatformMetrics,
  logger: Logger,
  { res, op, method, locals }: Pick<OperationExchange, 'res' | 'op' | 'method' | 'locals'>,
): void {
  const started = process.hrtime.bigint();
  // 'close' comes after 'finish', and alone when the client left first
  res.once('close', () => {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const status = res.headersSent ? res.statusCode : CLIENT_CLOSED;
    const labels = { operation: op.id, method, status: String(status) };
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, seconds);
    if (logger.isLevelEnabled('debug')) {
      logger.debug(
        {
          requestId: locals.requestId,
          operation: op.id,
          method,
          route: op.http?.path,
          status,
          ms: Math.round(seconds * 1e4) / 10,
          user: locals.caller?.username,
        },
        'request',
      );
    }
  });
}

/**
 * Counts a request that matched no operation (404, or 405 on a path of another method) in
 * `nap_http_requests_total` under the operation `unrouted`: a client calling a route that does not
 * exist shows. Not timed: nothing was done.
 */
export function countUnrouted(metrics: PlatformMetrics, method: string, status: number): void {
  metrics.httpRequests.inc({ operation: 'unrouted', method, status: String(status) });
}
