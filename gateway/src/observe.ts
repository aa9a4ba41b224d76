import type { Logger, PlatformMetrics } from '@nap/telemetry';
import type { OperationExchange } from './exchange';

/**
 * Counts and times the request once its answer is sent (`nap_http_requests_total`,
 * `nap_http_request_duration_seconds` by operation, method and status) and, at debug level
 * (NAP_LOG_LEVEL=debug), logs one line per request: never the query string, which may hold ?token=.
 */
export function observe(metrics: PlatformMetrics, logger: Logger, { res, op, method, locals }: OperationExchange): void {
  const started = process.hrtime.bigint();
  res.on('finish', () => {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const labels = { operation: op.id, method, status: String(res.statusCode) };
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, seconds);
    if (logger.isLevelEnabled('debug')) {
      logger.debug(
        {
          requestId: locals.requestId,
          operation: op.id,
          method,
          route: op.http?.path,
          status: res.statusCode,
          ms: Math.round(seconds * 1e4) / 10,
          user: locals.caller?.username,
        },
        'request',
      );
    }
  });
}
