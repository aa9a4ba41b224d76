import { AppError, hasCode } from '@nap/contracts';
import type { OutboundResponse } from '@nap/contracts';
import { injectTraceHeaders } from '@nap/telemetry';
import type { Context } from '@nap/telemetry';
import type { OrchestratorAdapter } from '../domain/adapter';
import type { OrchestratorRequest } from '../domain/orchestrator-requests';

/** Bound of one orchestrator call when the adapter sets none, ms (admin's default for adapter calls). */
export const DEFAULT_CALL_TIMEOUT_MS = 30_000;
/** Time kept back from the request deadline for the answer to travel back over the bus, ms. */
export const REPLY_MARGIN_MS = 500;

/** Sends one request through admin's bus-only `admin.callAdapter` (which adds the credentials); answers whatever the orchestrator answered. */
export type SendThroughAdapter = (input: {
  adapter: string;
  method: OrchestratorRequest['method'];
  path: string;
  headers: Record<string, string>;
  body?: unknown;
  credentialsAt?: { user: string; password: string };
  timeoutMs: number;
}) => Promise<OutboundResponse>;

/**
 * Calls an orchestrator adapter within the request's deadline: each call is bounded by the adapter's
 * `timeoutMs` (default {@link DEFAULT_CALL_TIMEOUT_MS}) and by what is left of the deadline, so a
 * slow orchestrator is a 504 DEVICE_TIMEOUT (an unreachable one a 502 UPSTREAM_FAILED) before the
 * caller gives up. The W3C trace context of the request goes along (`traceparent`, `tracestate`).
 */
export class Orchestrator {
  constructor(
    readonly adapter: OrchestratorAdapter,
    private readonly send: SendThroughAdapter,
    private readonly deadline: number,
    /** Called when admin says the adapter is gone or not running: the cached record is stale. */
    private readonly onStale: (name: string) => void,
    /** The request's trace context, sent on as `traceparent`/`tracestate`. */
    private readonly trace: Context,
  ) {}

  /** Milliseconds one call may take now, keeping `reserveMs` of the deadline for later calls (cleanup). */
  budget(reserveMs = 0): number {
    const left = this.deadline - Date.now() - REPLY_MARGIN_MS - reserveMs;
    return Math.min(this.adapter.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS, left);
  }

  async call(req: OrchestratorRequest, reserveMs = 0): Promise<OutboundResponse> {
    const timeoutMs = this.budget(reserveMs);
    if (timeoutMs <= 0)
      throw new AppError(
        'DEVICE_TIMEOUT',
        `No time left for ${req.method} ${req.path} on orchestrator "${this.adapter.name}" within the operation's deadline`,
      );
    const headers = { ...req.headers };
    injectTraceHeaders(headers, this.trace);
    try {
      return await this.send({
        adapter: this.adapter.name,
        method: req.method,
        path: req.path,
        headers,
        timeoutMs,
        ...(req.body !== undefined ? { body: req.body } : {}),
        ...(req.credentialsAt !== undefined ? { credentialsAt: req.credentialsAt } : {}),
      });
    } catch (err) {
      if (hasCode(err, 'ADAPTER_NOT_RUNNING') || hasCode(err, 'ADAPTER_NOT_FOUND')) this.onStale(this.adapter.name);
      throw err;
    }
  }
}
