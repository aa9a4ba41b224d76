import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError, eventPattern, isSubjectToken, redactSecrets } from '@nap/contracts';
import type { Caller, OperationDef, ResponseOf } from '@nap/contracts';
import type { Bus, BusClient, BusEvent, Subscription } from '@nap/bus';
import type { Logger } from '@nap/telemetry';
import type { Authenticator } from './auth/authenticator';
import { readCredentials } from './auth/authenticator';

export interface EventStreamOptions {
  bus: Bus;
  client: BusClient;
  authenticator: Authenticator;
  logger: Logger;
  /** Interval of the comment lines that keep idle connections open, ms. */
  heartbeatMs?: number;
}

/** Job events after which nothing more happens to the job: the stream ends after sending one. */
const FINAL_EVENTS = new Set(['jobComplete', 'jobError', 'jobCancel']);
const FINAL_STATUSES = new Set(['complete', 'error', 'canceled']);

function sseFrame(event: string, data: unknown, id?: number): string {
  const lines = JSON.stringify(data).split('\n').map((line) => `data: ${line}`);
  return `${id !== undefined ? `id: ${id}\n` : ''}event: ${event}\n${lines.join('\n')}\n\n`;
}

/**
 * `GET /operations-manager/jobs/:jobId/events` as server-sent events, the one route the gateway
 * answers itself: the caller is authenticated and role-checked like any route, the catalog operation
 * (`workflow.watchJobEvents`) checks that the job exists and that the caller may see it and answers
 * the job, which is sent as the first event (`snapshot`); then every `nap.evt.workflow.job.<jobId>.*`
 * event is relayed (event name = the job event, data = its payload, id = its `seq`, the position in
 * the job's stream) until the job ends or the client leaves. Job events are delivered at least once;
 * a repeat (a `seq` already sent) is not sent again. Errors before the stream starts are thrown
 * (answered as JSON).
 */
export function createJobEventStream(
  options: EventStreamOptions,
): (op: OperationDef, params: Record<string, string>, req: IncomingMessage, res: ServerResponse, query: Record<string, unknown>, requestId: string) => Promise<void> {
  const { bus, client, authenticator, logger } = options;
  const heartbeatMs = options.heartbeatMs ?? 15_000;

  return async (op, params, req, res, query, requestId) => {
    const credentials = readCredentials(req.headers, query.token);
    if (!credentials) throw new AppError('UNAUTHENTICATED', 'Credentials are required: a Bearer token, the token cookie, ?token= or Basic');
    const caller: Caller = await authenticator.authenticate(credentials);
    if (!op.roles.some((role) => caller.roles.includes(role))) {
      throw new AppError('FORBIDDEN', `${req.method} ${op.http?.path} needs one of the roles ${op.roles.join(', ')}; the caller has ${caller.roles.length ? caller.roles.join(', ') : 'none'}`);
    }
    const jobId = params.jobId ?? '';
    // an id that cannot be a subject token (`a.b`, `../x`) names no job: answered before subscribing
    if (!isSubjectToken(jobId)) throw new AppError('JOB_NOT_FOUND', `No job with id "${jobId.slice(0, 64)}"`);
    // subscribe first, so that nothing that happens between the snapshot and the subscription is lost
    const early: BusEvent[] = [];
    const stream: { live?: (event: BusEvent) => void; heartbeat?: NodeJS.Timeout; closed: boolean } = { closed: false };
    const subscription: Subscription = await bus.consumeEvents(eventPattern('workflow', 'job', jobId), (event) => (stream.live ? stream.live(event) : void early.push(event)), { deliver: 'new' });
    const close = () => {
      if (stream.closed) return;
      stream.closed = true;
      if (stream.heartbeat) clearInterval(stream.heartbeat);
      subscription.unsubscribe().catch((err: unknown) => logger.warn({ err, jobId }, 'Ending a job event subscription failed'));
      if (res.headersSent && !res.writableEnded) res.end();
    };
    let job: ResponseOf<'workflow.watchJobEvents'>;
    try {
      job = (await client.call('workflow.watchJobEvents', { params: { jobId } }, { caller, requestId })).body;
    } catch (err) {
      close();
      throw err;
    }
    res.statusCode = 200;
    res.setHeader('content-type', 'text/event-stream; charset=utf-8');
    res.setHeader('cache-control', 'no-cache');
    res.setHeader('connection', 'keep-alive');
    res.setHeader('x-accel-buffering', 'no');
    res.flushHeaders();
    req.on('close', close);
    res.write(sseFrame('snapshot', job));
    if (FINAL_STATUSES.has(String(job.status))) {
      close();
      return;
    }
    // job events come at least once: a repeat (after an engine crash or a bus outage) has a seq already sent
    let lastSeq = 0;
    const relay = (event: BusEvent) => {
      if (stream.closed) return;
      const name = event.subject.slice(event.subject.lastIndexOf('.') + 1);
      let payload: unknown;
      try {
        // job events carry task inputs and outputs: masked by the platform's secret policy like the job itself
        payload = redactSecrets(JSON.parse(Buffer.from(event.data).toString('utf8')));
      } catch {
        return;
      }
      const seq = typeof payload === 'object' && payload !== null && 'seq' in payload && typeof payload.seq === 'number' ? payload.seq : undefined;
      if (seq !== undefined) {
        if (seq <= lastSeq) return;
        lastSeq = seq;
      }
      res.write(sseFrame(name, payload, seq ?? event.seq));
      if (FINAL_EVENTS.has(name)) close();
    };
    for (const event of early.splice(0)) relay(event);
    stream.live = relay;
    stream.heartbeat = setInterval(() => res.write(': keep-alive\n\n'), heartbeatMs);
    stream.heartbeat.unref();
  };
}
