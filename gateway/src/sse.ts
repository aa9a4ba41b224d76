import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError, eventPattern, isSubjectToken, redactSecrets } from '@nap/contracts';
import type { Caller, EventStreamFilter, OperationDef, OperationId, ResponseOf } from '@nap/contracts';
import type { Bus, BusClient, BusEvent, EventDelivery, Subscription } from '@nap/bus';
import type { Logger } from '@nap/telemetry';
import { isRecord } from '@nap/util';
import type { Authenticator } from './auth/authenticator';
import { authenticate } from './authenticate';
import type { ClientAddress } from './client-address';
import { authorize } from './authorize';
import type { RequestLocals } from './exchange';
import { validate } from './validate';

export interface EventStreamOptions {
  bus: Bus;
  client: BusClient;
  authenticator: Authenticator;
  /** The address a request came from (Basic credentials are throttled per address). */
  clientAddress: ClientAddress;
  logger: Logger;
  /** Interval of the comment lines that keep idle connections open, ms. */
  heartbeatMs?: number;
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

/** The event streams by the id of their catalog operation. */
export type EventStreams = ReadonlyMap<string, EventStreamHandler>;

/** Job events after which nothing more happens to the job: the stream ends after sending one. */
const FINAL_EVENTS = new Set(['jobComplete', 'jobError', 'jobCancel']);
const FINAL_STATUSES = new Set(['complete', 'error', 'canceled']);
/** Visibility answers, and last `seq` per job, a stream keeps at most (per connection). */
const VISIBILITY_CACHE = 10_000;

function sseFrame(event: string, data: unknown, id?: number): string {
  const lines = JSON.stringify(data)
    .split('\n')
    .map((line) => `data: ${line}`);
  return `${id !== undefined ? `id: ${id}\n` : ''}event: ${event}\n${lines.join('\n')}\n\n`;
}

function eventName(event: BusEvent): string {
  return event.subject.slice(event.subject.lastIndexOf('.') + 1);
}

/** The event's payload, masked by the platform's secret policy (job events carry task inputs and outputs, like the job itself). */
function payloadOf(event: BusEvent): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(event.data).toString('utf8'));
    return isRecord(parsed) ? redactSecrets(parsed) : undefined;
  } catch {
    return undefined;
  }
}

/** The event's position in its job's stream (`seq`): job events are delivered at least once, and a repeat has a `seq` already sent. */
function jobSeqOf(payload: Record<string, unknown>): number | undefined {
  return typeof payload.seq === 'number' ? payload.seq : undefined;
}

/**
 * The server-sent event streams, the routes the gateway answers itself. Both authenticate and
 * check roles like any route, ask the owning operation over the bus before the stream starts (its
 * errors are answered as JSON), subscribe to the job events, then relay them (payloads masked by
 * the secret policy; a repeat of a job event already sent, by its `seq`, is not sent again), with a
 * comment line now and then to keep idle connections open, until the client leaves.
 *
 * - `GET /operations-manager/jobs/:jobId/events` (`workflow.watchJobEvents`): the job first
 *   (`snapshot`), then its events until it ends; the event id is the event's `seq` in the job's stream.
 * - `GET /operations-manager/events` (`workflow.watchEvents`): every job event the caller may see,
 *   filtered by workflow and event name; the event id is the stream position, and `Last-Event-ID`
 *   resumes after it.
 */
export function createEventStreams(options: EventStreamOptions): EventStreams {
  const { bus, client, authenticator, logger } = options;
  const heartbeatMs = options.heartbeatMs ?? 15_000;

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

  /** An open stream: headers sent, heartbeat running, closed once (client gone, job ended). */
  function open(req: IncomingMessage, res: ServerResponse, subscription: Subscription, context: Record<string, unknown>) {
    const stream = { closed: false, heartbeat: undefined as NodeJS.Timeout | undefined };
    const close = () => {
      if (stream.closed) return;
      stream.closed = true;
      if (stream.heartbeat) clearInterval(stream.heartbeat);
      subscription.unsubscribe().catch((err: unknown) => logger.warn({ err, ...context }, 'Ending an event subscription failed'));
      if (res.headersSent && !res.writableEnded) res.end();
    };
    res.statusCode = 200;
    res.setHeader('content-type', 'text/event-stream; charset=utf-8');
    res.setHeader('cache-control', 'no-cache');
    res.setHeader('connection', 'keep-alive');
    res.setHeader('x-accel-buffering', 'no');
    res.flushHeaders();
    req.on('close', close);
    const beat = () => {
      stream.heartbeat = setInterval(() => res.write(': keep-alive\n\n'), heartbeatMs);
      stream.heartbeat.unref();
    };
    return { stream, close, beat };
  }

  const jobEvents: EventStreamHandler = async (op, params, req, res, query, requestId, locals) => {
    const caller = await authorized(op, req, query, locals);
    const jobId = params.jobId ?? '';
    // an id that cannot be a subject token (`a.b`, `../x`) names no job: answered before subscribing
    if (!isSubjectToken(jobId)) throw new AppError('JOB_NOT_FOUND', `No job with id "${jobId.slice(0, 64)}"`);
    // subscribe first, so that nothing that happens between the snapshot and the subscription is lost
    const early: BusEvent[] = [];
    const holder: { live?: (event: BusEvent) => void } = {};
    const subscription = await bus.consumeEvents(
      eventPattern('workflow', 'job', jobId),
      (event) => (holder.live ? holder.live(event) : void early.push(event)),
      { deliver: 'new' },
    );
    let job: ResponseOf<'workflow.watchJobEvents'>;
    try {
      job = (await client.call('workflow.watchJobEvents', { params: { jobId } }, { caller, requestId })).body;
    } catch (err) {
      await subscription.unsubscribe().catch(() => undefined);
      throw err;
    }
    const { stream, close, beat } = open(req, res, subscription, { jobId });
    res.write(sseFrame('snapshot', job));
    if (FINAL_STATUSES.has(String(job.status))) {
      close();
      return;
    }
    let lastSeq = 0;
    const relay = (event: BusEvent) => {
      if (stream.closed) return;
      const payload = payloadOf(event);
      if (payload === undefined) return;
      const seq = jobSeqOf(payload);
      if (seq !== undefined) {
        if (seq <= lastSeq) return;
        lastSeq = seq;
      }
      const name = eventName(event);
      res.write(sseFrame(name, payload, seq ?? event.seq));
      if (FINAL_EVENTS.has(name)) close();
    };
    for (const event of early.splice(0)) relay(event);
    holder.live = relay;
    beat();
  };

  const allEvents: EventStreamHandler = async (op, _params, req, res, rawQuery, requestId, locals) => {
    const caller = await authorized(op, req, rawQuery, locals);
    const query = { ...rawQuery };
    delete query.token;
    const parts = { params: {}, query };
    validate(op, parts);
    const filter: EventStreamFilter = (await client.call('workflow.watchEvents', { query: parts.query }, { caller, requestId })).body;
    const deliver = resumeFrom(req);
    const visible = new Map<string, boolean>();
    const lastSeqs = new Map<string, number>();
    const events = new Set(filter.events);
    const workflows = new Set(filter.workflows);
    // events may arrive before the stream is open (a resumed stream gets the stored ones at once): they wait for it
    const opening: { done?: () => void } = {};
    let queue: Promise<void> = new Promise<void>((resolve) => {
      opening.done = resolve;
    });
    const state: { stream?: { closed: boolean } } = {};

    const mayShow = async (jobId: string): Promise<boolean> => {
      if (filter.allJobs) return true;
      const known = visible.get(jobId);
      if (known !== undefined) return known;
      const { jobIds } = (await client.call('workflow.visibleJobs', { body: { jobIds: [jobId] } }, { caller, requestId })).body;
      if (visible.size >= VISIBILITY_CACHE) visible.clear();
      visible.set(jobId, jobIds.includes(jobId));
      return jobIds.includes(jobId);
    };
    const relay = async (event: BusEvent): Promise<void> => {
      if (state.stream?.closed !== false) return;
      const name = eventName(event);
      if (events.size > 0 && !events.has(name)) return;
      const payload = payloadOf(event);
      if (payload === undefined) return;
      if (workflows.size > 0 && !workflows.has(String(payload.name))) return;
      const jobId = String(payload.jobId);
      if (!(await mayShow(jobId))) return;
      const seq = jobSeqOf(payload);
      if (seq !== undefined) {
        if (seq <= (lastSeqs.get(jobId) ?? 0)) return;
        if (lastSeqs.size >= VISIBILITY_CACHE) lastSeqs.clear();
        lastSeqs.set(jobId, seq);
      }
      if (!state.stream.closed) res.write(sseFrame(name, payload, event.seq));
    };
    // relayed one after the other, so that the order of the stream (and of each job's events) holds
    const subscription = await bus.consumeEvents(
      eventPattern('workflow', 'job'),
      (event) => {
        queue = queue
          .then(() => relay(event))
          .catch((err: unknown) => logger.warn({ err, subject: event.subject }, 'Relaying a job event failed'));
      },
      { deliver },
    );
    const { stream, beat } = open(req, res, subscription, { stream: 'events' });
    state.stream = stream;
    res.write(': following job events\n\n');
    opening.done?.();
    beat();
  };

  const streams = { 'workflow.watchJobEvents': jobEvents, 'workflow.watchEvents': allEvents } satisfies Partial<
    Record<OperationId, EventStreamHandler>
  >;
  return new Map(Object.entries(streams));
}

/** Where a stream starts: after the event a reconnecting client saw last (`Last-Event-ID`), or at new events. */
function resumeFrom(req: IncomingMessage): EventDelivery {
  const header = req.headers['last-event-id'];
  const text = typeof header === 'string' ? header.trim() : '';
  if (text === '') return 'new';
  const seq = Number(text);
  if (!Number.isInteger(seq) || seq < 0) {
    throw new AppError(
      'VALIDATION_FAILED',
      `The Last-Event-ID header must be the id of an event of this stream (a whole number), not "${text}"`,
      {
        details: [{ member: 'headers.last-event-id', message: 'must be a whole number' }],
      },
    );
  }
  return { startSeq: seq + 1 };
}
