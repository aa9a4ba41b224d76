import { randomUUID } from 'node:crypto';
import {
  AppError,
  HEADERS,
  assertJsonDepth,
  isAppError,
  notImplemented,
  operationsOf,
  subjectOf,
  validateRequest,
  withinRequestDeadline,
} from '@nap/contracts';
import type {
  AuditPart,
  BodyOf,
  Caller,
  OperationDef,
  OperationId,
  OperationIdFor,
  OperationInput,
  OperationNamesOf,
  ParamsOf,
  QueryOf,
  ResponseOf,
  ServiceName,
} from '@nap/contracts';
import { SpanKind, extractTraceContext, withSpan } from '@nap/telemetry';
import type { Context, Logger, PlatformMetrics } from '@nap/telemetry';
import { createBusClient } from './client';
import type { BusClient, CallInput, CallInputOf, CallOptions, RawResult } from './client';
import { decodeJson, encodeJson } from './codec';
import { ReplicaControl } from './control';
import type { IndexAdministration, LiveSettings } from './control';
import { IDEMPOTENCY_TTL_MS, acceptsIdempotencyKey, checkIdempotencyKey, idempotencyRecordId, requestFingerprint } from './idempotency';
import type { IdempotencyRecords, StoredOutcome } from './idempotency';
import type { Bus, BusHeaders, IncomingRequest, RegisteredService } from './types';

/** What a handler gets besides its input. */
export interface HandlerContext {
  operation: OperationDef;
  caller: Caller;
  requestId: string;
  /** Epoch ms after which the caller no longer waits. */
  deadline: number;
  /** The address the request came from, when the gateway said (`nap-client-address`); undefined for calls between services. */
  clientAddress: string | undefined;
  /** The client's `User-Agent`, when the gateway said (`nap-user-agent`). */
  userAgent: string | undefined;
  log: Logger;
  /** Calls another catalog operation as the same caller, within this request's deadline; returns its body, typed by the catalog. */
  call<Id extends OperationId>(operationId: Id, input: CallInputOf<Id>): Promise<ResponseOf<Id>>;
  /** Like `call`, for an operation named at run time (a workflow task's `app.method`); the answer is `unknown`. */
  callDynamic(operationId: string, input: CallInput): Promise<unknown>;
  /** Like `call`, answering the reply's bytes undecoded (for a handler that keeps or parses them itself). */
  callRaw(operationId: OperationId, input: CallInput): Promise<RawResult>;
  /** Publishes a durable event (`nap.evt.…`) carrying the request id. */
  publishEvent(subject: string, payload: unknown): Promise<void>;
  /**
   * The request's trace context (its SERVER span's), for code that hands the trace on to another
   * system itself (an orchestrator's `traceparent`): processes run without a context manager (see
   * `asyncContext` of `initTracing`), so nothing carries it through async code implicitly.
   */
  readonly trace: Context;
  /**
   * Tells the audit trail what the request acted on (`target`: kind, id, name) and, for an update,
   * which members changed (`changes`, from `auditChanges(before, after)` of `@nap/contracts`, masked
   * by the secret policy). Sent with the success answer (header `nap-audit`); the gateway puts it in
   * the request's audit record and never forwards it. Later calls add to earlier ones.
   */
  audit(part: AuditPart): void;
}

/** What the handler of operation `Id` receives: params, query and body typed by the catalog (validated before the call). */
export type InputOf<Id extends OperationId> = OperationInput<BodyOf<Id>, ParamsOf<Id>, QueryOf<Id>>;

/**
 * The handler of operation `Id`: plain async input → output, both typed by the operation's catalog
 * schemas. The returned value is the success body, answered with the catalog's status; return
 * {@link reply} to choose the status or content type.
 */
// `in out`: a handler belongs to exactly one operation (without it, the compiler may measure Id as
// unused through the catalog's conditional types and let one operation's handler stand for another's)
/** What a part of a service (a store, a step) is handed to tell the audit trail what it acted on and changed: the handler's context. */
export type AuditSink = Pick<HandlerContext, 'audit'>;

export type Handler<in out Id extends OperationId> = (
  input: InputOf<Id>,
  ctx: HandlerContext,
) => Promise<ResponseOf<Id> | Reply<ResponseOf<Id>> | RawReply | JsonTextReply<ResponseOf<Id>>>;

/**
 * Handlers of service `S` keyed by operation name; each is typed by its own operation, so a handler
 * under the wrong name or with the wrong input or answer does not compile. Operations without one
 * answer 501 `NOT_IMPLEMENTED`. `in out`: one service's map is never another's, and saying so spares
 * the compiler from measuring S's variance through the catalog's 333 operation names (9 of the
 * 30 s that type-checking the workspace took, `tsc --generateTrace`).
 */
export type HandlerMap<in out S extends ServiceName> = { [N in OperationNamesOf<S>]?: Handler<OperationIdFor<S, N>> };

/**
 * Any handler, as `serve` holds them after checking names against the catalog. A method signature
 * (parameters bivariant) lets every `Handler<Id>` stand here: serve validates each request against
 * the operation's schemas before the call, which is what makes the handler's input type true.
 */
interface AnyHandler {
  handle(input: OperationInput<unknown, unknown, unknown>, ctx: HandlerContext): Promise<unknown>;
}

const REPLY = Symbol('nap.reply');

/** A JSON reply with an explicit status. */
export interface Reply<T = unknown> {
  [REPLY]: 'json';
  status: number;
  body: T;
}

/** An answer in another representation than the operation's JSON body: text, or a file to download. */
export interface RawReply {
  [REPLY]: 'raw';
  status: number;
  /** The bytes of the answer: text (sent as UTF-8) or binary. */
  body: string | Uint8Array;
  contentType: string;
  /** Answered as an attachment with this file name (`Content-Disposition`). */
  filename?: string;
  /**
   * The answer is one part of a larger file: the query members that ask the same operation for the
   * next part (`nap-continue-with`). The gateway asks for every part in turn and sends them as one
   * HTTP body, so that no bus message carries more than a part (NATS refuses messages over its
   * `max_payload`). Absent on the last part.
   */
  continueWith?: Record<string, string>;
}

/**
 * The operation's JSON body as JSON text already (a document as its store keeps it), answered as it
 * is: the answer is the same as the value's, without decoding it to encode it again. `T` is what the
 * text holds, as the handler vouches.
 */
export interface JsonTextReply<T = unknown> {
  [REPLY]: 'jsonText';
  /** The catalog's when absent. */
  status?: number;
  json: string;
  /** Never set: carries `T`, so that a handler's answer is still checked against its operation's. */
  readonly body?: T;
}

/** A JSON answer given as its text (see {@link JsonTextReply}), with the catalog's status unless `status` is given. */
export function jsonTextReply<T>(json: string, status?: number): JsonTextReply<T> {
  return status === undefined ? { [REPLY]: 'jsonText', json } : { [REPLY]: 'jsonText', status, json };
}

/** The operation's JSON body with another status than the catalog's (202 for work accepted and still under way, …). */
export function reply<T>(status: number, body: T): Reply<T> {
  return { [REPLY]: 'json', status, body };
}

/**
 * An answer as text of the given media type, sent as it is (Prometheus exposition, a JSON document to
 * download): with `filename`, clients are told to save it as that file.
 */
export function rawReply(
  body: string | Uint8Array,
  contentType: string,
  options: { status?: number; filename?: string; continueWith?: Record<string, string> } = {},
): RawReply {
  const out: RawReply = { [REPLY]: 'raw', status: options.status ?? 200, body, contentType };
  if (options.filename !== undefined) out.filename = options.filename;
  if (options.continueWith !== undefined) out.continueWith = options.continueWith;
  return out;
}

function isReply(value: unknown): value is Reply | RawReply | JsonTextReply {
  return typeof value === 'object' && value !== null && REPLY in value;
}

/** What `handle` knows of a request before it is run: its id, deadline, logger and trace context (the SERVER span's). */
interface RequestMeta {
  requestId: string;
  deadline: number;
  log: () => Logger;
  trace: Context;
}

/** What `run` hands back to be answered. */
interface Outcome {
  status: number;
  data: Uint8Array;
  contentType?: string;
  filename?: string;
  /** Query members that ask for the next part of the file this answer is a part of. */
  continueWith?: Record<string, string>;
  /** The answer is a replay of the first answer to the same Idempotency-Key. */
  replayed?: boolean;
  /** What the handler told the audit trail, as the `nap-audit` header carries it. */
  audit?: string;
}

/** Largest `nap-audit` header, bytes; beyond it the changes keep their member names only. */
const AUDIT_HEADER_LIMIT = 256 * 1024;

/**
 * The `nap-audit` header of what a handler told the audit trail. Over the limit, the changes keep
 * their member names only, and the records of `each` their targets only.
 */
function auditHeader(part: AuditPart): string {
  const json = JSON.stringify(part);
  if (json.length <= AUDIT_HEADER_LIMIT) return json;
  const changes = part.changes?.map((c) => ({ member: c.member, digest: true }));
  const each = part.each?.map((one) => (one.target !== undefined ? { target: one.target } : {}));
  return JSON.stringify({ ...part, ...(changes ? { changes } : {}), ...(each ? { each } : {}) });
}

export interface ServeOptions<S extends ServiceName> {
  bus: Bus;
  service: S;
  version: string;
  handlers: HandlerMap<S>;
  logger: Logger;
  metrics?: PlatformMetrics;
  /** Extra discovery metadata. */
  metadata?: Record<string, string>;
  /** A bus client to reuse (its metrics); one is created otherwise. */
  client?: BusClient;
  /** The settings operators may change while the service runs (`PUT /applications/:name/properties`). */
  settings?: LiveSettings;
  /** The indexes the service declares, for `/indexes`. */
  indexes?: IndexAdministration;
  /**
   * Where the service remembers `Idempotency-Key`s (its own store). Without it, keys are ignored.
   * With it, a POST sent again with the same key and request by the same caller answers the first
   * success again and runs nothing; the same key with another request is 422.
   */
  idempotency?: IdempotencyRecords;
}

/**
 * Registers every catalog operation of `service` on the bus (NATS services framework, queue group
 * per service) and answers requests with `handlers`. The replica also listens on its control subject
 * (`nap.sys.control.<instance>`, the `instance` of its discovery metadata) for the admin service:
 * status, pause and resume, log level, live settings and index commands. It validates input that the gateway did not,
 * awaits the handler, turns any throw into an error reply (an unknown throw becomes 500 `INTERNAL`,
 * logged with its stack, never sent), and records metrics and a SERVER span. The only code that
 * touches bus subscriptions for requests.
 */
export async function serve<S extends ServiceName>(options: ServeOptions<S>): Promise<RegisteredService> {
  const { bus, service, logger, metrics } = options;
  const client = options.client ?? createBusClient({ bus, ...(metrics ? { metrics } : {}) });
  const operations = operationsOf(service);
  const known = new Set(operations.map((op) => op.name));
  const handlers = new Map<string, AnyHandler['handle']>();
  for (const [name, handler] of Object.entries<AnyHandler['handle'] | undefined>(options.handlers)) {
    if (!known.has(name)) throw new Error(`Handler "${name}" of service ${service} matches no catalog operation`);
    if (handler !== undefined) handlers.set(name, handler);
  }

  const endpoints = operations.map((op) => ({
    name: op.name,
    subject: subjectOf(op),
    metadata: { operation: op.id, ...(op.http ? { route: `${op.http.method} ${op.http.path}` } : {}) },
    handler: (req: IncomingRequest) => {
      void handle(op, handlers.get(op.name), req);
    },
  }));

  async function handle(op: OperationDef, handler: AnyHandler['handle'] | undefined, req: IncomingRequest): Promise<void> {
    const started = process.hrtime.bigint();
    const requestId = req.headers[HEADERS.requestId] ?? randomUUID();
    const deadline = Number(req.headers[HEADERS.deadline]) || Date.now() + op.timeoutMs;
    let outcome = '500';
    // a child logger costs an allocation per request; make it only when something is logged
    let child: Logger | undefined;
    const log = () => (child ??= logger.child({ requestId, operation: op.id }));
    try {
      await withSpan(
        op.id,
        SpanKind.SERVER,
        { 'messaging.system': 'nats', 'messaging.destination.name': req.subject, 'nap.request_id': requestId },
        async (span, trace) => {
          try {
            const result = await run(op, handler, req, { requestId, deadline, log, trace });
            outcome = String(result.status);
            const headers: BusHeaders = { [HEADERS.status]: String(result.status) };
            if (result.contentType !== undefined) headers[HEADERS.contentType] = result.contentType;
            if (result.filename !== undefined) headers[HEADERS.contentDisposition] = contentDisposition(result.filename);
            if (result.continueWith !== undefined) headers[HEADERS.continueWith] = JSON.stringify(result.continueWith);
            if (result.replayed) headers[HEADERS.idempotentReplay] = 'true';
            if (result.audit !== undefined) headers[HEADERS.audit] = result.audit;
            req.respond(result.data, headers);
          } catch (err) {
            const appError = toAppError(err, log(), requestId);
            outcome = String(appError.status);
            span.setAttribute('nap.error_code', appError.code);
            req.respondError(
              appError.status,
              appError.message,
              encodeJson({ code: appError.code, message: appError.message, details: appError.details }),
            );
            if (appError.status >= 500) throw appError;
          }
        },
        extractTraceContext(req.headers),
      );
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
    handler: AnyHandler['handle'] | undefined,
    req: IncomingRequest,
    meta: RequestMeta,
  ): Promise<Outcome> {
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
      // the gateway bounded the depth on the bytes already; other callers (services, tasks) are bounded here
      assertJsonDepth(input.body, `The body of ${op.id}`);
      assertJsonDepth(input.query, `The query of ${op.id}`);
      const problems = validateRequest(op, input);
      if (problems.length > 0) {
        throw new AppError('VALIDATION_FAILED', problems.map((p) => p.message).join('; '), { details: problems });
      }
    }
    if (!handler) throw notImplemented(op.id);
    if (Date.now() > meta.deadline) throw new AppError('TIMEOUT', `The request to ${op.id} expired before it was handled`);
    const caller = input.caller;
    let audit: AuditPart | undefined;
    // calls to other services go as the same caller, within this request's deadline and trace
    const callOptions: CallOptions = { caller, requestId: meta.requestId, deadline: meta.deadline, trace: meta.trace };
    const from = { address: req.headers[HEADERS.clientAddress], userAgent: req.headers[HEADERS.userAgent] };
    const ctx = new RequestContext(op, caller, meta, from, {
      call: async <Id extends OperationId>(operationId: Id, callInput: CallInputOf<Id>) =>
        (await client.call(operationId, callInput, callOptions)).body,
      callDynamic: async (operationId: string, callInput: CallInput) =>
        (await client.callDynamic(operationId, callInput, callOptions)).body,
      callRaw: (operationId, callInput) => client.callRaw(operationId, callInput, callOptions),
      publishEvent: async (subject, payload) => {
        await bus.publishEvent(subject, encodeJson(payload), { [HEADERS.requestId]: meta.requestId });
      },
      audit: (part) => {
        audit = {
          ...audit,
          ...(part.target !== undefined ? { target: { ...audit?.target, ...part.target } } : {}),
          ...(part.changes !== undefined ? { changes: [...(audit?.changes ?? []), ...part.changes] } : {}),
          ...(part.each !== undefined ? { each: [...(audit?.each ?? []), ...part.each] } : {}),
        };
      },
    });
    const key = req.headers[HEADERS.idempotencyKey];
    const records = options.idempotency;
    const invoke = async (): Promise<Outcome> => {
      const outcome = toOutcome(op, await withinRequestDeadline(meta.deadline, () => handler(input, ctx)));
      if (audit !== undefined) outcome.audit = auditHeader(audit);
      return outcome;
    };
    if (key === undefined || records === undefined || !acceptsIdempotencyKey(op)) return invoke();
    return once(
      records,
      idempotencyRecordId(op, caller, checkIdempotencyKey(key)),
      requestFingerprint({ params: input.params, query: input.query, body: input.body }),
      meta.deadline,
      op,
      invoke,
    );
  }

  /**
   * Runs `invoke` at most once per Idempotency-Key record: a success is kept and replayed to the
   * same request again; a failure releases the key so that a retry runs (nothing was created, or the
   * error says what was). The record lives in the service's own store, so replicas share it.
   */
  async function once(
    records: IdempotencyRecords,
    id: string,
    fingerprint: string,
    deadline: number,
    op: OperationDef,
    invoke: () => Promise<Outcome>,
  ): Promise<Outcome> {
    const found = await records.begin(id, fingerprint, deadline);
    if (found.state === 'done') {
      const out: Outcome = { status: found.outcome.status, data: Buffer.from(found.outcome.data, 'base64'), replayed: true };
      if (found.outcome.contentType !== undefined) out.contentType = found.outcome.contentType;
      if (found.outcome.filename !== undefined) out.filename = found.outcome.filename;
      return out;
    }
    if (found.state === 'mismatch') {
      throw new AppError(
        'IDEMPOTENCY_KEY_REUSED',
        `This Idempotency-Key was used within the last ${IDEMPOTENCY_TTL_MS / 3_600_000} hours for another request to ${op.id}; use a new key for a new request`,
      );
    }
    if (found.state === 'busy') {
      throw new AppError(
        'IDEMPOTENCY_KEY_IN_PROGRESS',
        `A request to ${op.id} with this Idempotency-Key is still being handled; retry once it has answered`,
      );
    }
    let outcome: Outcome;
    try {
      outcome = await invoke();
    } catch (err) {
      await records.release(id).catch(() => undefined);
      throw err;
    }
    const stored: StoredOutcome = { status: outcome.status, data: Buffer.from(outcome.data).toString('base64') };
    if (outcome.contentType !== undefined) stored.contentType = outcome.contentType;
    if (outcome.filename !== undefined) stored.filename = outcome.filename;
    await records.complete(id, stored);
    return outcome;
  }

  // the replica's own id: stable while the process runs, unlike the registration id (new on each pause and resume)
  const instance = randomUUID();
  // the registration is read only once the control channel listens, after it is made
  const control = new ReplicaControl(
    instance,
    {
      bus,
      service,
      logger,
      ...(options.settings ? { settings: options.settings } : {}),
      ...(options.indexes ? { indexes: options.indexes } : {}),
    },
    () => registered,
  );
  const paused = await control.prepare();
  const registered = await bus.addService({
    name: service,
    version: options.version,
    description: `NAP ${service} service`,
    metadata: { started: new Date().toISOString(), instance, ...(options.metadata ?? {}) },
    queue: service,
    endpoints,
    paused,
  });
  control.listen();
  return {
    get id() {
      return registered.id;
    },
    get info() {
      return registered.info;
    },
    get state() {
      return registered.state;
    },
    pause: () => registered.pause(),
    resume: () => registered.resume(),
    stop: async () => {
      await control.close();
      await registered.stop();
    },
  };
}

/**
 * What a handler is given for one request. A class rather than an object literal for the sake of
 * `log`, a getter (the child logger is made only when something is logged): on Node 20, an object
 * literal with a getter, made once per request, kept every request's objects (input, caller,
 * closures, the NATS message) alive through young-generation collections until the next full one
 * (other dictionary-mode objects, from a deleted property or many added ones, did not). In the
 * distributed admin service that was 1.7 MB promoted and a 4-6 ms pause every 50 ms under load; as
 * a class, a few KB and about 1 ms (`--trace-gc-nvp`; docs/architecture.md).
 */
class RequestContext implements HandlerContext {
  readonly requestId: string;
  readonly deadline: number;
  readonly call: HandlerContext['call'];
  readonly callDynamic: HandlerContext['callDynamic'];
  readonly callRaw: HandlerContext['callRaw'];
  readonly publishEvent: HandlerContext['publishEvent'];
  readonly audit: HandlerContext['audit'];
  readonly clientAddress: string | undefined;
  readonly userAgent: string | undefined;

  constructor(
    readonly operation: OperationDef,
    readonly caller: Caller,
    private readonly meta: RequestMeta,
    client: { address: string | undefined; userAgent: string | undefined },
    calls: Pick<HandlerContext, 'call' | 'callDynamic' | 'callRaw' | 'publishEvent' | 'audit'>,
  ) {
    this.clientAddress = client.address;
    this.userAgent = client.userAgent;
    this.requestId = meta.requestId;
    this.deadline = meta.deadline;
    this.call = calls.call;
    this.callDynamic = calls.callDynamic;
    this.callRaw = calls.callRaw;
    this.publishEvent = calls.publishEvent;
    this.audit = calls.audit;
  }

  get log(): Logger {
    return this.meta.log();
  }

  get trace(): Context {
    return this.meta.trace;
  }
}

function toOutcome(op: OperationDef, result: unknown): Outcome {
  if (!isReply(result)) return { status: op.response.status, data: encodeAnswer(op, result) };
  if (result[REPLY] === 'json') return { status: result.status, data: encodeAnswer(op, result.body) };
  if (result[REPLY] === 'jsonText') return { status: result.status ?? op.response.status, data: Buffer.from(result.json, 'utf8') };
  const data = typeof result.body === 'string' ? Buffer.from(result.body, 'utf8') : result.body;
  const out: Outcome = { status: result.status, data, contentType: result.contentType };
  if (result.filename !== undefined) out.filename = result.filename;
  if (result.continueWith !== undefined) out.continueWith = result.continueWith;
  return out;
}

/**
 * An answer as JSON bytes. One longer than the longest string the runtime holds (about 512 MiB: a job
 * that refers to one large value many times reads back as many copies) is 422 ANSWER_TOO_LARGE,
 * saying what to do, rather than a 500 that explains nothing.
 */
function encodeAnswer(op: OperationDef, body: unknown): Uint8Array {
  try {
    return encodeJson(body);
  } catch (err) {
    if (!(err instanceof RangeError) || !/string length/i.test(err.message)) throw err;
    throw new AppError(
      'ANSWER_TOO_LARGE',
      `The answer of ${op.http ? `${op.http.method} ${op.http.path}` : op.id} would be longer than the platform can write (a JSON text of about 512 MiB): ask for less of it (fewer items; large members left out where the route allows, as exclude does on the job lists)`,
    );
  }
}

/** `attachment; filename="…"` with the name made safe for a header (RFC 6266: ASCII fallback, UTF-8 form). */
function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

function toAppError(err: unknown, log: Logger, requestId: string): AppError {
  if (isAppError(err)) {
    if (err.status >= 500) log.error({ err }, err.message);
    return err;
  }
  log.error({ err }, 'Unexpected error in handler');
  return new AppError('INTERNAL', `Internal error; the log holds the cause under request id ${requestId}`);
}
