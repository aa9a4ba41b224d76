import { randomUUID } from 'node:crypto';
import { AppError, HEADERS, isAppError, notImplemented, operationsOf, subjectOf, validateRequest } from '@nap/contracts';
import type { Caller, OperationDef, OperationInput, ServiceName } from '@nap/contracts';
import { SpanKind, extractTraceContext, withSpan } from '@nap/telemetry';
import type { Logger, PlatformMetrics } from '@nap/telemetry';
import { createBusClient } from './client';
import type { BusClient, CallInput } from './client';
import { decodeJson, encodeJson } from './codec';
import type { Bus, BusHeaders, IncomingRequest, RegisteredService } from './types';

/** What a handler gets besides its input. */
export interface HandlerContext {
  operation: OperationDef;
  caller: Caller;
  requestId: string;
  /** Epoch ms after which the caller no longer waits. */
  deadline: number;
  log: Logger;
  /** Calls another catalog operation as the same caller, within this request's deadline; returns its body. */
  call<T = unknown>(operationId: string, input: CallInput): Promise<T>;
  /** Publishes a durable event (`nap.evt.…`) with the current trace context. */
  publishEvent(subject: string, payload: unknown): Promise<void>;
}

/**
 * A handler: plain async input → output. The returned value is the success body, answered with
 * the catalog's status; return {@link reply} to choose the status or content type.
 */
export type Handler<TBody = never, TParams = never, TQuery = never> = (
  input: OperationInput<TBody, TParams, TQuery>,
  ctx: HandlerContext,
) => Promise<unknown>;

/** Handlers of a service by operation name. Operations without one answer 501 `NOT_IMPLEMENTED`. */
export type HandlerMap = Partial<Record<string, Handler>>;

const REPLY = Symbol('nap.reply');

/** A reply with an explicit status and, optionally, a content type other than JSON. */
export interface Reply {
  [REPLY]: true;
  status: number;
  body: unknown;
  contentType?: string;
}

export function reply(status: number, body: unknown, contentType?: string): Reply {
  return contentType === undefined ? { [REPLY]: true, status, body } : { [REPLY]: true, status, body, contentType };
}

function isReply(value: unknown): value is Reply {
  return typeof value === 'object' && value !== null && REPLY in value;
}

export interface ServeOptions {
  bus: Bus;
  service: ServiceName;
  version: string;
  handlers: HandlerMap;
  logger: Logger;
  metrics?: PlatformMetrics;
  /** Extra discovery metadata. */
  metadata?: Record<string, string>;
  /** A bus client to reuse (its metrics); one is created otherwise. */
  client?: BusClient;
}

/**
 * Registers every catalog operation of `service` on the bus (NATS services framework, queue group
 * per service) and answers requests with `handlers`. It validates input that the gateway did not,
 * awaits the handler, turns any throw into an error reply (an unknown throw becomes 500 `INTERNAL`,
 * logged with its stack, never sent), and records metrics and a SERVER span. The only code that
 * touches bus subscriptions for requests.
 */
export async function serve(options: ServeOptions): Promise<RegisteredService> {
  const { bus, service, handlers, logger, metrics } = options;
  const client = options.client ?? createBusClient({ bus, ...(metrics ? { metrics } : {}) });
  const operations = operationsOf(service);
  const known = new Set(operations.map((op) => op.name));
  for (const name of Object.keys(handlers)) {
    if (!known.has(name)) throw new Error(`Handler "${name}" of service ${service} matches no catalog operation`);
  }

  const endpoints = operations.map((op) => ({
    name: op.name,
    subject: subjectOf(op),
    metadata: { operation: op.id, ...(op.http ? { route: `${op.http.method} ${op.http.path}` } : {}) },
    handler: (req: IncomingRequest) => {
      void handle(op, handlers[op.name], req);
    },
  }));

  async function handle(op: OperationDef, handler: Handler | undefined, req: IncomingRequest): Promise<void> {
    const started = process.hrtime.bigint();
    const requestId = req.headers[HEADERS.requestId] ?? randomUUID();
    const deadline = Number(req.headers[HEADERS.deadline]) || Date.now() + op.timeoutMs;
    let outcome = '500';
    // a child logger costs an allocation per request; make it only when something is logged
    let child: Logger | undefined;
    const log = () => (child ??= logger.child({ requestId, operation: op.id }));
    try {
      await withSpan(op.id, SpanKind.SERVER, { 'messaging.system': 'nats', 'messaging.destination.name': req.subject, 'nap.request_id': requestId }, async (span) => {
        try {
          const result = await run(op, handler, req, { requestId, deadline, log });
          outcome = String(result.status);
          const headers: BusHeaders = { [HEADERS.status]: String(result.status) };
          if (result.contentType) headers[HEADERS.contentType] = result.contentType;
          req.respond(encodeBody(result.body, result.contentType), headers);
        } catch (err) {
          const appError = toAppError(err, log(), requestId);
          outcome = String(appError.status);
          span.setAttribute('nap.error_code', appError.code);
          req.respondError(appError.status, appError.message, encodeJson({ code: appError.code, message: appError.message, details: appError.details }));
          if (appError.status >= 500) throw appError;
        }
      }, extractTraceContext(req.headers));
    } catch {
      // the error reply is sent and the span marked; nothing is lost by swallowing here
    } finally {
      if (metrics) {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        metrics.busRequests.inc({ operation: op.id, outcome });
        metrics.busDuration.observe({ operation: op.id, outcome }, seconds);
      }
    }
  }

  async function run(
    op: OperationDef,
    handler: Handler | undefined,
    req: IncomingRequest,
    meta: { requestId: string; deadline: number; log: () => Logger },
  ): Promise<{ status: number; body: unknown; contentType?: string }> {
    let input: OperationInput<unknown, Record<string, string>, Record<string, unknown>>;
    try {
      input = decodeJson(req.data);
    } catch (err) {
      throw new AppError('BAD_REQUEST', `The request to ${op.id} is not valid JSON`, { cause: err });
    }
    if (typeof input !== 'object' || input === null || typeof input.caller !== 'object' || input.caller === null) {
      throw new AppError('BAD_REQUEST', `The request to ${op.id} lacks the caller`);
    }
    input.params ??= {};
    input.query ??= {};
    if (req.headers[HEADERS.validated] !== '1') {
      const problems = validateRequest(op, input);
      if (problems.length > 0) {
        throw new AppError('VALIDATION_FAILED', problems.map((p) => p.message).join('; '), { details: problems });
      }
    }
    if (!handler) throw notImplemented(op.id);
    if (Date.now() > meta.deadline) throw new AppError('TIMEOUT', `The request to ${op.id} expired before it was handled`);
    const caller = input.caller;
    const ctx: HandlerContext = {
      operation: op,
      caller,
      requestId: meta.requestId,
      deadline: meta.deadline,
      get log() {
        return meta.log();
      },
      call: async <T>(operationId: string, callInput: CallInput) =>
        (await client.call<T>(operationId, callInput, { caller, requestId: meta.requestId, deadline: meta.deadline })).body,
      publishEvent: async (subject, payload) => {
        await bus.publishEvent(subject, encodeJson(payload), { [HEADERS.requestId]: meta.requestId });
      },
    };
    const result = await handler(input as OperationInput<never, never, never>, ctx);
    if (isReply(result)) return result.contentType === undefined ? { status: result.status, body: result.body } : { status: result.status, body: result.body, contentType: result.contentType };
    return { status: op.response.status, body: result };
  }

  return bus.addService({
    name: service,
    version: options.version,
    description: `NAP ${service} service`,
    metadata: { started: new Date().toISOString(), ...(options.metadata ?? {}) },
    queue: service,
    endpoints,
  });
}

/** JSON unless the reply chose another content type and gave a string (Prometheus text, a download). */
function encodeBody(body: unknown, contentType: string | undefined): Uint8Array {
  if (contentType !== undefined && !contentType.includes('json') && typeof body === 'string') return Buffer.from(body, 'utf8');
  return encodeJson(body);
}

function toAppError(err: unknown, log: Logger, requestId: string): AppError {
  if (isAppError(err)) {
    if (err.status >= 500) log.error({ err }, err.message);
    return err;
  }
  log.error({ err }, 'Unexpected error in handler');
  return new AppError('INTERNAL', `Internal error; the log holds the cause under request id ${requestId}`);
}
