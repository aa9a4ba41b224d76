import { AppError, HEADERS, getOperation, subjectOf } from '@nap/contracts';
import type { BodyOf, Caller, ErrorBody, OperationDef, OperationId, ParamsOf, QueryOf, ResponseOf } from '@nap/contracts';
import { SpanKind, injectTraceHeaders, withSpan } from '@nap/telemetry';
import type { Context, PlatformMetrics } from '@nap/telemetry';
import { decodeJson, encodeJson } from './codec';
import type { Bus, BusHeaders, BusReply } from './types';

/** The parts of a request as any operation takes them, unchecked: for callers that forward input (the gateway). */
export interface CallInput {
  params?: Record<string, string>;
  query?: Record<string, unknown>;
  body?: unknown;
}

/**
 * The request of operation `Id`, typed from its catalog schemas: `body` is required when the
 * operation has one, `params` when its route has `:params`; `query` is always optional.
 */
export type CallInputOf<Id extends OperationId> = (BodyOf<Id> extends undefined ? { body?: undefined } : { body: BodyOf<Id> }) &
  (Record<string, never> extends ParamsOf<Id> ? { params?: ParamsOf<Id> } : { params: ParamsOf<Id> }) & { query?: Partial<QueryOf<Id>> };

export interface CallOptions {
  caller: Caller;
  requestId?: string;
  /** Epoch ms after which the answer is useless; the earlier of it and the operation timeout applies. */
  deadline?: number;
  /** Overrides the catalog timeout. */
  timeoutMs?: number;
  /** The request was validated against the catalog already (the gateway does); the service skips it. */
  validated?: boolean;
  /** The client's `Idempotency-Key`: the owning service answers a retry with the first answer. */
  idempotencyKey?: string;
  /** Where the request came from (the gateway's client address): what login throttling counts per address. */
  clientAddress?: string;
  /** The client's `User-Agent` (the gateway's): what a session begun by the request is listed with. */
  userAgent?: string;
  /**
   * The trace context the request belongs to: the parent of its CLIENT span, sent on in its
   * `traceparent`. Default: the active context, which only a process with a context manager carries
   * (see `asyncContext` of `initTracing`); code of a process without one passes it here.
   */
  trace?: Context;
}

/** A reply as bytes, for callers that forward it untouched (the gateway). */
export interface RawResult {
  status: number;
  data: Uint8Array;
  headers: BusHeaders;
}

export interface CallResult<T = unknown> {
  status: number;
  body: T;
}

/** Calls catalog operations over the bus: subjects, timeouts, headers and errors handled once, here. */
export interface BusClient {
  /** Sends the request and returns the reply bytes; error replies reject with `AppError`. */
  callRaw(operation: string | OperationDef, input: CallInput, options: CallOptions): Promise<RawResult>;
  /**
   * Calls operation `Id` with a request typed by its catalog schemas and answers its success body,
   * typed likewise (JSON decoded; text for operations that answer another content type).
   */
  call<Id extends OperationId>(operation: Id, input: CallInputOf<Id>, options: CallOptions): Promise<CallResult<ResponseOf<Id>>>;
  /**
   * Calls an operation named at run time (a workflow task's `app.method`, a test's table): the
   * request is validated by the service against the catalog, and the answer is `unknown` until the
   * caller checks it.
   */
  callDynamic(operation: string | OperationDef, input: CallInput, options: CallOptions): Promise<CallResult<unknown>>;
}

export interface BusClientOptions {
  bus: Bus;
  metrics?: PlatformMetrics;
}

/** Reads an error reply (services-framework headers plus `{ code, message, details }`) into an `AppError`. */
export function errorFromReply(reply: BusReply, operationId: string): AppError | undefined {
  const statusHeader = reply.headers[HEADERS.errorCode];
  if (statusHeader === undefined) return undefined;
  const status = Number(statusHeader) || 500;
  let body: Partial<ErrorBody> | undefined;
  try {
    body = decodeJson<Partial<ErrorBody>>(reply.data);
  } catch {
    body = undefined;
  }
  const message = body?.message ?? reply.headers[HEADERS.errorMessage] ?? `Operation ${operationId} failed`;
  return new AppError(body?.code ?? 'INTERNAL', message, { status, details: body?.details });
}

/**
 * Reads (every GET, and the spec's POST reads the catalog marks `safe`) are sent again, hedged, when
 * a sixth of their catalog timeout passes without a reply (5 s of the usual 30 s): over NATS a
 * request that reached a replica just before it died is lost, and the caller would otherwise wait
 * the whole timeout for a 504. A read answers in milliseconds, so the second request goes out only
 * when something is wrong; one that is merely slow costs a second read, never a second change.
 * Operations with short timeouts (under 15 s: health, logout) are not hedged.
 */
const HEDGE_FRACTION = 1 / 6;
const HEDGE_MIN_TIMEOUT_MS = 15_000;

function hedging(op: OperationDef, timeoutMs: number): { hedgeAfterMs?: number } {
  if (!(op.safe ?? op.http?.method === 'GET') || op.timeoutMs < HEDGE_MIN_TIMEOUT_MS) return {};
  const hedgeAfterMs = Math.round(op.timeoutMs * HEDGE_FRACTION);
  return hedgeAfterMs < timeoutMs ? { hedgeAfterMs } : {};
}

export function createBusClient(options: BusClientOptions): BusClient {
  const { bus, metrics } = options;

  async function callRaw(operation: string | OperationDef, input: CallInput, callOptions: CallOptions): Promise<RawResult> {
    const op = typeof operation === 'string' ? getOperation(operation) : operation;
    const now = Date.now();
    const timeoutMs = Math.max(1, Math.min(callOptions.timeoutMs ?? op.timeoutMs, (callOptions.deadline ?? Infinity) - now));
    const headers: BusHeaders = { [HEADERS.deadline]: String(now + timeoutMs) };
    if (callOptions.requestId) headers[HEADERS.requestId] = callOptions.requestId;
    if (callOptions.validated) headers[HEADERS.validated] = '1';
    if (callOptions.idempotencyKey !== undefined) headers[HEADERS.idempotencyKey] = callOptions.idempotencyKey;
    if (callOptions.clientAddress !== undefined) headers[HEADERS.clientAddress] = callOptions.clientAddress;
    if (callOptions.userAgent !== undefined) headers[HEADERS.userAgent] = callOptions.userAgent;
    const payload = encodeJson({ params: input.params ?? {}, query: input.query ?? {}, body: input.body, caller: callOptions.caller });
    const subject = subjectOf(op);
    const send = async (_span: unknown, ctx: Context): Promise<RawResult> => {
      injectTraceHeaders(headers, ctx);
      let outcome = 'error';
      try {
        const reply = await bus.request(subject, payload, { timeoutMs, headers, ...hedging(op, timeoutMs) });
        const err = errorFromReply(reply, op.id);
        if (err) {
          outcome = String(err.status);
          throw err;
        }
        const status = Number(reply.headers[HEADERS.status] ?? op.response.status);
        outcome = String(status);
        return { status, data: reply.data, headers: reply.headers };
      } catch (err) {
        if (err instanceof AppError) outcome = String(err.status);
        throw err;
      } finally {
        metrics?.busClientRequests.inc({ operation: op.id, outcome });
      }
    };
    const attributes = { 'messaging.system': 'nats', 'messaging.destination.name': subject };
    // without a trace of the caller's, the span's parent is the active context (withSpan's default)
    return withSpan(`${op.id} send`, SpanKind.CLIENT, attributes, send, callOptions.trace);
  }

  async function callDynamic(operation: string | OperationDef, input: CallInput, callOptions: CallOptions): Promise<CallResult<unknown>> {
    const raw = await callRaw(operation, input, callOptions);
    const contentType = raw.headers[HEADERS.contentType];
    const body: unknown =
      contentType !== undefined && !contentType.includes('json') ? Buffer.from(raw.data).toString('utf8') : decodeJson(raw.data);
    return { status: raw.status, body };
  }

  return {
    callRaw,
    callDynamic,
    call: <Id extends OperationId>(operation: Id, input: CallInputOf<Id>, callOptions: CallOptions) =>
      // the one place a reply gets its type: the handler behind this subject was compiled against the same ResponseOf<Id>
      callDynamic(operation, input, callOptions) as Promise<CallResult<ResponseOf<Id>>>,
  };
}
