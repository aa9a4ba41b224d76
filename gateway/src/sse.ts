import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError, isSubjectToken } from '@nap/contracts';
import type { Caller, EventStreamFilter, OperationDef, OperationId, ResponseOf } from '@nap/contracts';
import type { Bus, BusClient } from '@nap/bus';
import type { Logger, Registry } from '@nap/telemetry';
import { readCredentials } from './auth/authenticator';
import type { Authenticator } from './auth/authenticator';
import { authenticate } from './authenticate';
import type { ClientAddress } from './client-address';
import { authorize } from './authorize';
import type { RequestLocals } from './exchange';
import { JobEventHub } from './job-event-hub';
import type { ResumeOptions, StreamStart } from './job-event-hub';
import { DEFAULT_SINK_OPTIONS } from './sse-sink';
import type { SinkOptions } from './sse-sink';
import { createStreamAccess } from './stream-access';
import { validate } from './validate';

export interface EventStreamOptions {
  bus: Bus;
  client: BusClient;
  authenticator: Authenticator;
  /** The address a request came from (Basic credentials are throttled per address). */
  clientAddress: ClientAddress;
  logger: Logger;
  /** Where the streams' clients are counted (`nap_event_stream_clients`). */
  registry?: Registry;
  /** Interval of the comment lines that keep idle connections open, ms. */
  heartbeatMs?: number;
  /** How slow clients are treated (bytes a client may leave unread before it is dropped, …). */
  sink?: Partial<SinkOptions>;
  /** How far back, and how many at once, streams resume with Last-Event-ID (a window of stream positions, replays per caller and in all). */
  resume?: Partial<ResumeOptions>;
  /** Further streamed answers the gateway gives itself, by operation id (the audit export). */
  others?: Readonly<Record<string, EventStreamHandler>>;
  /**
   * How often an open stream's token is authenticated again besides the changes the authenticator
   * hears of (it expired, or its session was ended where no event reached this gateway), ms. Default 60 s.
   */
  callerRecheckMs?: number;
  /**
   * The window over which the checks of the callers one change concerns are spread (the first at
   * once), so that the admin service is not asked for all of them at the same moment, ms. Default 1 s.
   */
  callerCheckSpreadMs?: number;
  /** Streams one caller may have open at once on this gateway (both kinds); more are refused with 429 `TOO_MANY_STREAMS`. Default 100. */
  maxStreamsPerCaller?: number;
}

/** A stream the gateway answers itself: the catalog operation, its path parameters, the exchange, the parsed query. */
export type EventStreamHandler = (
  op: OperationDef,
  params: Record<string, string>,
  req: IncomingMessage,
  res: ServerResponse,
  query: Record<string, unknown>,
  requestId: string,
  /** What the gateway learns of the request (the caller, how it authenticated), for the audit trail of a refusal. */
  locals?: RequestLocals,
) => Promise<void>;

/** The event streams by the id of their catalog operation, and the hub that serves them all. */
export interface EventStreams {
  get(operationId: string): EventStreamHandler | undefined;
  /** Ends every stream (the gateway stops). */
  stop(): Promise<void>;
  readonly hub: JobEventHub;
}

const FINAL_STATUSES = new Set(['complete', 'error', 'canceled']);
/** Streams one caller may have open at once on a gateway: a client that opens streams without end cannot take every socket. */
const MAX_STREAMS_PER_CALLER = 100;

/** Sends the headers of an event stream. */
function openStream(res: ServerResponse): void {
  res.statusCode = 200;
  res.setHeader('content-type', 'text/event-stream; charset=utf-8');
  res.setHeader('cache-control', 'no-cache');
  res.setHeader('connection', 'keep-alive');
  res.setHeader('x-accel-buffering', 'no');
  res.flushHeaders();
}

/**
 * The server-sent event streams, the routes the gateway answers itself. Both authenticate and
 * check roles like any route, ask the owning operation over the bus before the stream starts (its
 * errors are answered as JSON), then relay the job events from the gateway's one subscription
 * ({@link JobEventHub}: payloads masked by the secret policy, a repeat of a job event already sent,
 * by its `seq`, not sent again, the same bytes for every client, a slow client dropped with a
 * `retry:` line), with a comment line now and then to keep idle connections open, until the client leaves.
 *
 * - `GET /operations-manager/jobs/:jobId/events` (`workflow.watchJobEvents`): the job first
 *   (`snapshot`), then its events until it ends; the event id is the event's `seq` in the job's stream.
 * - `GET /operations-manager/events` (`workflow.watchEvents`): every job event the caller may see,
 *   filtered by workflow and event name; the event id is the stream position, and `Last-Event-ID`
 *   resumes after it: at most `resume.window` positions before the stream's end (from further back,
 *   a `gap` event comes first), replaying a few streams of a caller at once (the others wait, open).
 */
export function createEventStreams(options: EventStreamOptions): EventStreams {
  const { bus, client, authenticator, logger } = options;
  const hub = new JobEventHub({
    bus,
    client,
    logger,
    ...(options.registry ? { registry: options.registry } : {}),
    heartbeatMs: options.heartbeatMs ?? 15_000,
    sink: { ...DEFAULT_SINK_OPTIONS, ...options.sink },
    ...(options.resume ? { resume: options.resume } : {}),
  });

  const access = createStreamAccess({
    authenticator,
    clientAddress: options.clientAddress,
    logger,
    end: (res) => hub.endStream(res),
    recheckMs: options.callerRecheckMs ?? 60_000,
    spreadMs: options.callerCheckSpreadMs ?? 1_000,
  });
  const maxStreams = options.maxStreamsPerCaller ?? MAX_STREAMS_PER_CALLER;
  const openByCaller = new Map<string, number>();

  /** Counts a stream of the caller until its response closes; 429 `TOO_MANY_STREAMS` when the caller has as many open as it may. */
  function countStream(caller: Caller, res: ServerResponse): void {
    const open = openByCaller.get(caller.id) ?? 0;
    if (open >= maxStreams)
      throw new AppError(
        'TOO_MANY_STREAMS',
        `"${caller.username}" has ${open} event streams open on this gateway, as many as one caller may; close one first (one GET /operations-manager/events follows every job)`,
        { details: { limit: maxStreams } },
      );
    openByCaller.set(caller.id, open + 1);
    res.once('close', () => {
      const left = (openByCaller.get(caller.id) ?? 1) - 1;
      if (left > 0) openByCaller.set(caller.id, left);
      else openByCaller.delete(caller.id);
    });
  }

  async function authorized(
    op: OperationDef,
    req: IncomingMessage,
    query: Record<string, unknown>,
    locals?: RequestLocals,
  ): Promise<Caller> {
    const caller = await authenticate(authenticator, req, query, options.clientAddress, locals);
    authorize(op, caller, req.method);
    return caller;
  }

  const jobEvents: EventStreamHandler = async (op, params, req, res, query, requestId, locals) => {
    const caller = await authorized(op, req, query, locals);
    countStream(caller, res);
    const jobId = params.jobId ?? '';
    // an id that cannot be a subject token (`a.b`, `../x`) names no job: answered before subscribing
    if (!isSubjectToken(jobId)) throw new AppError('JOB_NOT_FOUND', `No job with id "${jobId.slice(0, 64)}"`);
    // followed first, so that nothing that happens between the snapshot and the subscription is lost
    const watch = await hub.watchJob(jobId, res);
    let job: ResponseOf<'workflow.watchJobEvents'>;
    try {
      job = (await client.call('workflow.watchJobEvents', { params: { jobId } }, { caller, requestId })).body;
    } catch (err) {
      watch.cancel();
      throw err;
    }
    openStream(res);
    watch.sink.writeNow(`event: snapshot\ndata: ${JSON.stringify(job)}\n\n`);
    if (FINAL_STATUSES.has(String(job.status))) {
      watch.sink.end();
      return;
    }
    access.follow(op, req, readCredentials(req.headers, query.token), caller, res);
    watch.open();
  };

  const allEvents: EventStreamHandler = async (op, _params, req, res, rawQuery, requestId, locals) => {
    const caller = await authorized(op, req, rawQuery, locals);
    countStream(caller, res);
    const query = { ...rawQuery };
    delete query.token;
    const parts = { params: {}, query };
    validate(op, parts);
    const filter: EventStreamFilter = (await client.call('workflow.watchEvents', { query: parts.query }, { caller, requestId })).body;
    const deliver = resumeFrom(req);
    openStream(res);
    res.write(': following job events\n\n');
    access.follow(op, req, readCredentials(req.headers, rawQuery.token), caller, res);
    try {
      await hub.watchAll(caller, filter, deliver, res);
    } catch (err) {
      logger.warn({ err, requestId }, 'Following job events failed');
      res.end();
    }
  };

  const streams = new Map<string, EventStreamHandler>(
    Object.entries({ 'workflow.watchJobEvents': jobEvents, 'workflow.watchEvents': allEvents } satisfies Partial<
      Record<OperationId, EventStreamHandler>
    >),
  );
  return { get: (id) => streams.get(id) ?? options.others?.[id], stop: () => hub.stop(), hub };
}

/** How much of a Last-Event-ID that is not one an error quotes. */
const MAX_SHOWN_ID_CHARS = 40;

/** Where a stream starts: after the event a reconnecting client saw last (`Last-Event-ID`), or at new events. */
function resumeFrom(req: IncomingMessage): StreamStart {
  const header = req.headers['last-event-id'];
  const text = typeof header === 'string' ? header.trim() : '';
  if (text === '') return 'new';
  // decimal digits only (Number() would read 0x10, 1e3 and 0b1 too), and a position the stream can have
  const seq = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(seq + 1)) {
    const shown = text.length > MAX_SHOWN_ID_CHARS ? `${text.slice(0, MAX_SHOWN_ID_CHARS)}…` : text;
    throw new AppError(
      'VALIDATION_FAILED',
      `The Last-Event-ID header must be the id of an event of this stream (a whole number, at most ${Number.MAX_SAFE_INTEGER - 1}), not "${shown}"`,
      {
        details: [{ member: 'headers.last-event-id', message: 'must be a whole number' }],
      },
    );
  }
  return { startSeq: seq + 1 };
}
