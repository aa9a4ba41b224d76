import type { ServerResponse } from 'node:http';
import { SYSTEM_CALLER, audienceAdmitsGroups, audienceAdmitsPerson, eventPattern, redactSecrets } from '@nap/contracts';
import type { Caller, EventStreamFilter, JobAudience } from '@nap/contracts';
import type { Bus, BusClient, BusEvent, Subscription } from '@nap/bus';
import { counterOnce, gaugeOnce } from '@nap/telemetry';
import type { Logger, Registry } from '@nap/telemetry';
import { RecentMap, isRecord, sleep } from '@nap/util';
import { SseSink, sharedJoin } from './sse-sink';
import type { SinkEnd, SinkOptions } from './sse-sink';

/** Job events after which nothing more happens to the job. */
const FINAL_EVENTS = new Set(['jobComplete', 'jobError', 'jobCancel']);
/** Jobs whose audience, and whose last `seq` sent, the hub keeps at most (least recently used go first). */
const JOBS_KEPT = 10_000;
/** Events waiting to be relayed beyond which the hub makes the bus wait (back-pressure to its consumer). */
const MAX_QUEUED = 10_000;
/** Events relayed per pass: their unknown audiences are asked for in one call. */
const BATCH = 500;
/** Events a resumed stream buffers from the shared subscription while it reads the stored ones. */
const MAX_CATCH_UP_BUFFER = 10_000;
/** Stored events a resumed stream reads before it sends them: their unknown audiences are asked for in one call. */
const REPLAY_BATCH = 500;
/** Stored events a replay parses and masks in one turn of the event loop. */
const REPLAY_SLICE = 100;
/** Bytes of a replay written before it waits for the client to take them. */
const REPLAY_CHUNK_BYTES = 256 * 1024;
/** The subjects of the job events. */
const JOB_EVENTS = eventPattern('workflow', 'job');
/** How long the shared subscription outlives its last client, ms (a reconnecting client finds it). */
const LINGER_MS = 5_000;
const HEARTBEAT = Buffer.from(': keep-alive\n\n');

/** A job event as every client gets it: parsed, masked and framed once. */
interface HubEvent {
  /** Position in the event stream (`id` of the platform-wide stream). */
  seq: number;
  name: string;
  jobId: string;
  workflow: string;
  /** Position in the job's own stream (`seq` in the payload): a repeat has one already sent. */
  jobSeq: number | undefined;
  final: boolean;
  json: string;
  /** The frame of the platform-wide stream (id: the stream position). */
  frame: Buffer;
  /** The frame of the job's stream (id: the job's `seq`), built when someone follows the job. */
  jobFrame?: Buffer;
}

function frameOf(id: number, name: string, json: string): Buffer {
  // JSON.stringify writes no line break, so the data is one `data:` line
  return Buffer.from(`id: ${id}\nevent: ${name}\ndata: ${json}\n\n`);
}

/** The event as the streams send it; undefined when it is not a job event with a JSON object payload. */
function prepare(event: BusEvent): HubEvent | undefined {
  // nap.evt.workflow.job.<jobId>.<event>
  const parts = event.subject.split('.');
  const jobId = parts[4];
  const name = parts[5];
  if (jobId === undefined || name === undefined) return undefined;
  let payload: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(event.data.buffer, event.data.byteOffset, event.data.byteLength).toString('utf8'));
    if (!isRecord(parsed)) return undefined;
    // job events carry task inputs and outputs, like the job itself: masked by the secret policy
    payload = redactSecrets(parsed);
  } catch {
    return undefined;
  }
  const json = JSON.stringify(payload);
  return {
    seq: event.seq,
    name,
    jobId,
    workflow: String(payload.name),
    jobSeq: typeof payload.seq === 'number' ? payload.seq : undefined,
    final: FINAL_EVENTS.has(name),
    json,
    frame: frameOf(event.seq, name, json),
  };
}

/**
 * Clients of the platform-wide stream with the same filter and the same group set: whether they may
 * see a job's events by its groups is decided once for all of them.
 */
class ClientGroup {
  readonly clients = new Set<StreamClient>();
  private readonly events: Set<string>;
  private readonly workflows: Set<string>;
  constructor(
    readonly key: string,
    filter: EventStreamFilter,
    readonly groups: readonly string[],
  ) {
    this.events = new Set(filter.events);
    this.workflows = new Set(filter.workflows);
    this.allJobs = filter.allJobs;
  }
  readonly allJobs: boolean;
  matches(e: HubEvent): boolean {
    return (this.events.size === 0 || this.events.has(e.name)) && (this.workflows.size === 0 || this.workflows.has(e.workflow));
  }
}

/** How far back, and how many at once, streams may resume (see {@link JobEventHubOptions.resume}). */
export interface ResumeOptions {
  /**
   * Stream positions a resume goes back at most from the stream's end: a client that left off
   * earlier gets a `gap` event, then the events from there on. Default 10 000.
   */
  window: number;
  /** Replays of stored events one caller may have running at once; more wait their turn. Default 2. */
  perCaller: number;
  /** Replays running at once on this gateway, whoever the callers; more wait their turn. Default 8. */
  atOnce: number;
  /**
   * How long a replay waits for its client to take a chunk (256 KiB) before it drops the client
   * as too slow (with a `retry:` line), so that a client that reads nothing does not hold a turn, ms.
   * Default 15 000.
   */
  stallMs: number;
}

export const DEFAULT_RESUME_OPTIONS: ResumeOptions = { window: 10_000, perCaller: 2, atOnce: 8, stallMs: 15_000 };

/** Where a stream starts: at new events, or after the event of the stream it saw last. */
export type StreamStart = 'new' | { startSeq: number };

/** What a resumed stream keeps while it reads the stored events on its own. */
interface CatchUp {
  subscription?: Subscription;
  /** Where it reads the stored events up to (their last at the start): past it, the shared subscription has them all. */
  end: number;
  /** Stream position of the last stored event it read and sent (or passed over). */
  position: number;
  /** Stream position of the last stored event it read (sent or waiting in `pending`). */
  received: number;
  /** Stored events read and not yet sent, in order. */
  pending: BusEvent[];
  /** Events of the shared subscription for this client past `received`, in order. */
  buffered: HubEvent[];
  /** The sending of what is pending, one batch after another. */
  work: Promise<void>;
  /** A turn of the event loop is to send what is pending (the stored events stopped coming). */
  soon: boolean;
  /** The stored events met the shared subscription's: once what is pending is sent, the stream goes live. */
  met: boolean;
  /** Who may see the jobs it replays: asked for a batch at a time, kept for the replay. */
  audiences: RecentMap<string, JobAudience | null>;
  /** Lets the next waiting replay start. */
  slot: ReplaySlot;
}

/** A turn of a replay (see {@link ReplaySlots}): it starts when `ready` resolves, and lets go with `release`. */
interface ReplaySlot {
  readonly ready: Promise<void>;
  release(): void;
}

/**
 * The replays that run, and those waiting their turn in order: at most `perCaller` of one caller
 * and `atOnce` in all run at once (a client reconnecting in a loop, or many tabs after a restart,
 * replay one after another instead of all at once). A waiting stream is open and gets its
 * keep-alive comments; it reads nothing until its turn.
 */
class ReplaySlots {
  private readonly running = new Map<string, number>();
  private total = 0;
  private readonly waiting: { callerId: string; start(): void }[] = [];

  constructor(private readonly limits: ResumeOptions) {}

  get runningCount(): number {
    return this.total;
  }

  get waitingCount(): number {
    return this.waiting.length;
  }

  take(callerId: string): ReplaySlot {
    let state: 'waiting' | 'running' | 'done' = 'waiting';
    let resolve: () => void = () => undefined;
    const ready = new Promise<void>((r) => (resolve = r));
    const entry = {
      callerId,
      start: () => {
        state = 'running';
        this.total += 1;
        this.running.set(callerId, (this.running.get(callerId) ?? 0) + 1);
        resolve();
      },
    };
    this.waiting.push(entry);
    this.pump();
    return {
      ready,
      release: () => {
        if (state === 'waiting') {
          this.waiting.splice(this.waiting.indexOf(entry), 1);
          resolve();
        } else if (state === 'running') {
          this.total -= 1;
          const left = (this.running.get(callerId) ?? 1) - 1;
          if (left === 0) this.running.delete(callerId);
          else this.running.set(callerId, left);
        }
        state = 'done';
        this.pump();
      },
    };
  }

  /** Starts the waiting replays that may run now, first come first. */
  private pump(): void {
    for (let i = 0; i < this.waiting.length && this.total < this.limits.atOnce;) {
      const entry = this.waiting[i] as { callerId: string; start(): void };
      if ((this.running.get(entry.callerId) ?? 0) >= this.limits.perCaller) {
        i += 1;
        continue;
      }
      this.waiting.splice(i, 1);
      entry.start();
    }
  }
}

/** Resolves in the next turn of the event loop, once what waits for I/O has run. */
function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * Why a resumed client is not sent every event after its id: it left off further back than a
 * resume goes (`window`), or the events it missed are no longer kept (`retention`: the stream's age
 * or size limit removed them, or an in-process stream started afresh).
 */
type GapReason = { kind: 'window'; window: number } | { kind: 'retention' };

/** The frame that tells a resumed client it missed events: the stream goes on at `resumesAt`. */
function gapFrame(lastEventId: number, resumesAt: number, reason: GapReason): Buffer {
  const why =
    reason.kind === 'window'
      ? `are not sent: a stream resumes at most ${reason.window} positions before the end of the event stream`
      : 'are no longer kept: the event stream removed them (it keeps events for a limited time and size)';
  const data = {
    lastEventId,
    resumesAt,
    reason: reason.kind,
    message:
      `Events after ${lastEventId} and before ${resumesAt} ${why}. Read the jobs you follow again ` +
      `(GET /operations-manager/jobs); the events from ${resumesAt} on follow.`,
  };
  // its id is the position before the first it sends: a client that reconnects now is not told again
  return Buffer.from(`id: ${resumesAt - 1}\nevent: gap\ndata: ${JSON.stringify(data)}\n\n`);
}

/** A client of the platform-wide stream. */
class StreamClient {
  /** Live events at or before this position were read from the store already (a resumed stream). */
  skipThrough = 0;
  /** Last `seq` per job sent to this client, kept only by a resumed stream (the shared one knows the rest). */
  jobSeqs?: RecentMap<string, number>;
  catchUp?: CatchUp;
  constructor(
    readonly caller: Caller,
    readonly group: ClientGroup,
    readonly sink: SseSink,
  ) {}
}

/** A client of one job's stream: frames wait until its snapshot is written. */
class JobWatcher {
  private held: Buffer[] | undefined = [];
  private ended = false;
  constructor(readonly sink: SseSink) {}
  deliver(frame: Buffer, final: boolean): void {
    if (this.held !== undefined) {
      this.held.push(frame);
      this.ended ||= final;
      return;
    }
    this.sink.push(frame);
    if (final) this.sink.end();
  }
  /** A comment line that keeps the connection open, once the stream is. */
  beat(): void {
    if (this.held === undefined) this.sink.push(HEARTBEAT);
  }
  /** The snapshot is written: what waited follows it. */
  open(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const frame of held) this.sink.push(frame);
    if (this.ended) this.sink.end();
  }
}

/**
 * From this many clients on, frames are written at most every `COALESCE_MS` rather than at the end
 * of every turn: 500 clients and a few hundred turns a second with events made as many writes, a
 * system call each, as the platform's whole work of starting the jobs. A client waits at most that
 * much longer for an event.
 */
const COALESCE_FROM_CLIENTS = 64;
const COALESCE_MS = 25;

export interface JobEventHubOptions {
  bus: Bus;
  client: BusClient;
  logger: Logger;
  /** Where the clients are counted: `nap_event_stream_clients{stream}` and the slow ones dropped. */
  registry?: Registry;
  /** Interval of the comment lines that keep idle connections open, ms. */
  heartbeatMs: number;
  sink: SinkOptions;
  /** How far back, and how many at once, streams resume with Last-Event-ID; defaults {@link DEFAULT_RESUME_OPTIONS}. */
  resume?: Partial<ResumeOptions>;
}

/** The hub's two streams, as the metrics name them: every job event (`/operations-manager/events`), or one job's (`…/jobs/:id/events`). */
export type HubStream = 'events' | 'job';
const HUB_STREAMS: readonly HubStream[] = ['events', 'job'];

/** A client's handle on the hub: where its frames go, and how it lets go. */
export interface HubClient {
  readonly sink: SseSink;
}

/**
 * Every event stream of a gateway served from one subscription to the job events: each event is
 * parsed, masked and framed once, whether a client may see it is decided once per job and group set
 * (the job's audience, asked of the workflow service once per job, `audienceAdmitsGroups`; only a
 * job's owner and initiator are checked one by one), and the same bytes are written to every client
 * that may, batched per turn of the event loop (with many clients, at most every `COALESCE_MS`:
 * each write to a socket costs a system call, whatever it carries). A repeat of a job event (same `seq`) is sent once.
 * A stream resumed with Last-Event-ID reads the stored events on its own subscription until it meets
 * the shared one: from at most `resume.window` positions before the stream's end (further back, it
 * is told so by a `gap` event), a batch at a time with the audiences of a batch asked for in one
 * call, each batch written once the client took the one before, a few replays at once per caller
 * and per gateway (see {@link ReplaySlots}). The shared subscription starts with the first client
 * and ends a little after the last.
 */
export class JobEventHub {
  private subscription: Subscription | undefined;
  private lifecycle: Promise<void> = Promise.resolve();
  private lingerTimer: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly groups = new Map<string, ClientGroup>();
  private readonly watchers = new Map<string, Set<JobWatcher>>();
  private clientCount = 0;
  private readonly audiences = new RecentMap<string, JobAudience | null>(JOBS_KEPT);
  private readonly jobSeqs = new RecentMap<string, number>(JOBS_KEPT);
  private queue: BusEvent[] = [];
  private processing = false;
  private readonly drained: (() => void)[] = [];
  private readonly dirty = new Set<SseSink>();
  private flushScheduled = false;
  private stopped = false;
  private readonly resume: ResumeOptions;
  private readonly replays: ReplaySlots;
  /** Resumed streams waiting for their turn to replay: open, with keep-alive comments. */
  private readonly waitingSinks = new Set<SseSink>();
  /** The sink of each response the hub streams to, so that a stream can be ended from outside ({@link endStream}). */
  private readonly sinks = new WeakMap<ServerResponse, SseSink>();

  /** Clients by stream, and the count of slow ones dropped (both no-ops without a registry). */
  private readonly perStream = new Map<HubStream, number>(HUB_STREAMS.map((stream) => [stream, 0]));
  private readonly droppedSlow: (stream: HubStream) => void = () => undefined;

  constructor(private readonly options: JobEventHubOptions) {
    this.resume = { ...DEFAULT_RESUME_OPTIONS, ...options.resume };
    this.replays = new ReplaySlots(this.resume);
    if (options.registry) {
      const perStream = this.perStream;
      gaugeOnce(options.registry, {
        name: 'nap_event_stream_clients',
        help: 'Clients of the server-sent event streams: events (every job event a caller may see) and job (one job)',
        labelNames: ['stream'],
        collect() {
          for (const [stream, count] of perStream) this.set({ stream }, count);
        },
      });
      const dropped = counterOnce(options.registry, {
        name: 'nap_event_stream_clients_dropped_total',
        help: 'Event stream clients dropped for reading their events too slowly (told to reconnect with Last-Event-ID)',
        labelNames: ['stream'],
      });
      for (const stream of HUB_STREAMS) dropped.inc({ stream }, 0);
      this.droppedSlow = (stream) => dropped.inc({ stream });
    }
  }

  /** Clients connected now (both streams). */
  get clients(): number {
    return this.clientCount;
  }

  /** Resumed streams replaying stored events now, and those waiting for their turn. */
  get replaying(): { running: number; waiting: number } {
    return { running: this.replays.runningCount, waiting: this.replays.waitingCount };
  }

  // ---- clients ----------------------------------------------------------------------------------

  /** Ends the stream of `res` without what is queued for it (its caller lost access); nothing when it has none. */
  endStream(res: ServerResponse): void {
    this.sinks.get(res)?.close();
  }

  /**
   * Follows one job for a client whose response is not open yet: events wait until `open()`, so
   * that nothing between the subscription and the snapshot is lost. `cancel()` lets go (the
   * snapshot could not be read).
   */
  async watchJob(jobId: string, res: ServerResponse): Promise<{ open(): void; sink: SseSink; cancel(): void }> {
    // `cancel` lets go without touching the response, which then answers the error
    await this.ensureSubscribed();
    // the sink's release runs once the stream ends, after `watcher` below is set
    const sink = this.sink(res, 'job', () => {
      const set = this.watchers.get(jobId);
      set?.delete(watcher);
      if (set?.size === 0) this.watchers.delete(jobId);
    });
    const watcher = new JobWatcher(sink);
    let set = this.watchers.get(jobId);
    if (set === undefined) this.watchers.set(jobId, (set = new Set()));
    set.add(watcher);
    return { sink, open: () => watcher.open(), cancel: () => sink.release() };
  }

  /**
   * Follows every job event the caller may see through `filter`, from `start` on; the response is
   * open. A resumed stream waits for its turn to replay (see {@link ReplaySlots}) before it joins.
   */
  async watchAll(caller: Caller, filter: EventStreamFilter, start: StreamStart, res: ServerResponse): Promise<HubClient> {
    await this.ensureSubscribed();
    // the client joins once its turn came: the sink's release may run before
    const joined: { client?: StreamClient } = {};
    const slot = start === 'new' ? undefined : this.replays.take(caller.id);
    const sink = this.sink(res, 'events', () => {
      this.waitingSinks.delete(sink);
      slot?.release();
      const { client } = joined;
      if (client === undefined) return;
      const { group } = client;
      group.clients.delete(client);
      if (group.clients.size === 0) this.groups.delete(group.key);
      if (client.catchUp?.subscription) void client.catchUp.subscription.unsubscribe().catch(() => undefined);
      delete client.catchUp;
    });
    if (slot !== undefined) {
      this.waitingSinks.add(sink);
      await slot.ready;
      this.waitingSinks.delete(sink);
      if (sink.closed) return { sink };
    }
    const groupsOfCaller = filter.allJobs ? [] : [...new Set(caller.groups)].sort();
    const key = JSON.stringify([filter.allJobs, groupsOfCaller, [...filter.events].sort(), [...filter.workflows].sort()]);
    let group = this.groups.get(key);
    if (group === undefined) this.groups.set(key, (group = new ClientGroup(key, filter, groupsOfCaller)));
    const client = new StreamClient(caller, group, sink);
    joined.client = client;
    group.clients.add(client);
    if (start !== 'new' && slot !== undefined) await this.catchUp(client, start.startSeq, slot);
    return { sink };
  }

  private sink(res: ServerResponse, stream: HubStream, release: () => void): SseSink {
    this.clientCount += 1;
    this.perStream.set(stream, (this.perStream.get(stream) ?? 0) + 1);
    if (this.lingerTimer) clearTimeout(this.lingerTimer);
    this.lingerTimer = undefined;
    this.heartbeat ??= setInterval(() => this.beat(), this.options.heartbeatMs);
    this.heartbeat.unref();
    const sink: SseSink = new SseSink(
      res,
      this.options.sink,
      (s) => this.schedule(s),
      (why: SinkEnd) => {
        this.clientCount -= 1;
        this.perStream.set(stream, (this.perStream.get(stream) ?? 1) - 1);
        this.dirty.delete(sink);
        release();
        if (why === 'slow') {
          this.droppedSlow(stream);
          this.options.logger.info({ stream }, 'Closed an event stream whose client read its events too slowly');
        }
        if (this.clientCount === 0) this.idle();
      },
    );
    this.sinks.set(res, sink);
    return sink;
  }

  private beat(): void {
    for (const group of this.groups.values()) for (const client of group.clients) client.sink.push(HEARTBEAT);
    for (const sink of this.waitingSinks) sink.push(HEARTBEAT);
    for (const set of this.watchers.values()) for (const watcher of set) watcher.beat();
  }

  private schedule(sink: SseSink): void {
    this.dirty.add(sink);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    const flush = () => {
      this.flushScheduled = false;
      const sinks = [...this.dirty];
      this.dirty.clear();
      const join = sharedJoin();
      for (const s of sinks) s.flush(join);
    };
    if (this.clientCount >= COALESCE_FROM_CLIENTS) setTimeout(flush, COALESCE_MS);
    else setImmediate(flush);
  }

  // ---- the shared subscription --------------------------------------------------------------------

  private ensureSubscribed(): Promise<void> {
    if (this.stopped) return Promise.reject(new Error('The gateway is stopping'));
    this.lifecycle = this.lifecycle.then(async () => {
      if (this.subscription !== undefined || this.stopped) return;
      this.subscription = await this.options.bus.consumeEvents(JOB_EVENTS, (event) => this.enqueue(event), {
        deliver: 'new',
      });
    });
    return this.lifecycle;
  }

  /** The last client left: the subscription ends unless another comes soon. */
  private idle(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    this.lingerTimer = setTimeout(() => {
      this.lingerTimer = undefined;
      if (this.clientCount > 0) return;
      this.lifecycle = this.lifecycle.then(() => this.unsubscribe());
    }, LINGER_MS);
    this.lingerTimer.unref();
  }

  private async unsubscribe(): Promise<void> {
    if (this.clientCount > 0 || this.subscription === undefined) return;
    const subscription = this.subscription;
    this.subscription = undefined;
    await subscription.unsubscribe().catch((err: unknown) => this.options.logger.warn({ err }, 'Ending the job event subscription failed'));
  }

  /** Ends every stream and the subscription (the gateway stops). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.lingerTimer) clearTimeout(this.lingerTimer);
    if (this.heartbeat) clearInterval(this.heartbeat);
    for (const group of [...this.groups.values()]) for (const client of [...group.clients]) client.sink.close();
    for (const sink of [...this.waitingSinks]) sink.close();
    for (const set of [...this.watchers.values()]) for (const watcher of [...set]) watcher.sink.close();
    this.lifecycle = this.lifecycle.then(async () => {
      const subscription = this.subscription;
      this.subscription = undefined;
      await subscription?.unsubscribe().catch(() => undefined);
    });
    await this.lifecycle;
  }

  /** Takes an event of the shared subscription; makes the bus wait while too many are queued. */
  private enqueue(event: BusEvent): Promise<void> | void {
    this.queue.push(event);
    if (!this.processing) void this.process();
    if (this.queue.length >= MAX_QUEUED) return new Promise<void>((resolve) => this.drained.push(resolve));
  }

  /** Relays the queued events in order, a batch at a time, asking for the unknown audiences of a batch in one call. */
  private async process(): Promise<void> {
    this.processing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.length <= BATCH ? this.queue : this.queue.slice(0, BATCH);
        this.queue = this.queue.length <= BATCH ? [] : this.queue.slice(BATCH);
        const events: HubEvent[] = [];
        for (const raw of batch) {
          const e = prepare(raw);
          if (e !== undefined) events.push(e);
        }
        if (this.needsAudiences()) await this.learnAudiences(events);
        for (const e of events) {
          try {
            this.dispatch(e);
          } catch (err) {
            this.options.logger.warn({ err, subject: `job ${e.jobId} ${e.name}` }, 'Relaying a job event failed');
          }
        }
        if (this.queue.length < MAX_QUEUED / 2) for (const resolve of this.drained.splice(0)) resolve();
      }
    } catch (err) {
      this.options.logger.warn({ err }, 'Relaying job events failed');
    } finally {
      this.processing = false;
    }
  }

  private needsAudiences(): boolean {
    for (const group of this.groups.values()) if (!group.allJobs) return true;
    return false;
  }

  /** Asks the workflow service who may see the jobs of `events` it has not met yet (as the platform, one call per 500 jobs). */
  private async learnAudiences(events: readonly HubEvent[]): Promise<void> {
    const unknown = [...new Set(events.filter((e) => !this.audiences.has(e.jobId)).map((e) => e.jobId))];
    await this.askAudiences(unknown, (id, audience) => this.audiences.set(id, audience));
  }

  /**
   * Asks the workflow service who may see `jobIds` (as the platform, one call per 500 jobs) and
   * tells `learn` each one's audience: null for a job that does not exist, or when asking failed
   * three times (then only callers who see every job see its events).
   */
  private async askAudiences(jobIds: readonly string[], learn: (jobId: string, audience: JobAudience | null) => void): Promise<void> {
    for (let i = 0; i < jobIds.length; i += BATCH) {
      const ids = jobIds.slice(i, i + BATCH);
      for (let attempt = 1; ; attempt += 1) {
        try {
          const { jobs } = (await this.options.client.call('workflow.jobAudiences', { body: { jobIds: ids } }, { caller: SYSTEM_CALLER }))
            .body;
          const found = new Map(jobs.map((a) => [a.jobId, a]));
          // a job that does not exist has no audience: only callers who see every job see its events
          for (const id of ids) learn(id, found.get(id) ?? null);
          break;
        } catch (err) {
          if (attempt >= 3 || this.stopped) {
            this.options.logger.warn(
              { err, jobs: ids.length },
              'Asking who may see jobs failed; their events reach only callers who see every job',
            );
            for (const id of ids) learn(id, null);
            break;
          }
          await sleep(100 * 2 ** attempt);
        }
      }
    }
  }

  /** Sends an event to every client that may see it: the same bytes to all of them. */
  private dispatch(e: HubEvent): void {
    if (e.jobSeq !== undefined) {
      // at least once: a repeat of a job event (an engine took the job over) is sent once
      if ((this.jobSeqs.get(e.jobId) ?? 0) >= e.jobSeq) return;
      this.jobSeqs.set(e.jobId, e.jobSeq);
    }
    const watchers = this.watchers.get(e.jobId);
    if (watchers !== undefined) {
      const frame = (e.jobFrame ??= e.jobSeq === undefined ? e.frame : frameOf(e.jobSeq, e.name, e.json));
      for (const watcher of watchers) watcher.deliver(frame, e.final);
    }
    const audience = this.audiences.get(e.jobId);
    for (const group of this.groups.values()) {
      if (!group.matches(e)) continue;
      const byGroups = group.allJobs || (audience != null && audienceAdmitsGroups(audience, group.groups));
      for (const client of group.clients) {
        if (!byGroups && (audience == null || !audienceAdmitsPerson(audience, client.caller))) continue;
        this.live(client, e);
      }
    }
    if (e.final) this.audiences.delete(e.jobId);
  }

  /** An event of the shared subscription for one client. */
  private live(client: StreamClient, e: HubEvent): void {
    const catchUp = client.catchUp;
    if (catchUp !== undefined) {
      if (e.seq > catchUp.received) {
        // the stored events have not reached it yet: it waits for them
        if (catchUp.buffered.push(e) > MAX_CATCH_UP_BUFFER) client.sink.close();
        return;
      }
      // the stored events read are at or past it: the client goes live once they are sent
      if (!catchUp.met) {
        catchUp.met = true;
        void this.sendPending(client, catchUp);
      }
      return;
    }
    if (e.seq <= client.skipThrough) return;
    if (client.jobSeqs !== undefined && e.jobSeq !== undefined) {
      if ((client.jobSeqs.get(e.jobId) ?? 0) >= e.jobSeq) return;
      client.jobSeqs.set(e.jobId, e.jobSeq);
    }
    client.sink.push(e.frame);
  }

  // ---- resumed streams ------------------------------------------------------------------------------

  /**
   * A resumed stream reads the stored events from where it left off (at most `resume.window`
   * positions before the stream's end: further back it is sent a `gap` event first) on its own
   * subscription, until it meets the shared one: at the last stored event when it started, at an
   * event the shared subscription has buffered for it, or when the shared one relays an event it
   * has read already. The events are read a batch at a time, the bus waiting meanwhile.
   */
  private async catchUp(client: StreamClient, startSeq: number, slot: ReplaySlot): Promise<void> {
    // from now on the shared subscription's events wait for the stored ones
    const catchUp: CatchUp = {
      end: 0,
      position: 0,
      received: 0,
      pending: [],
      buffered: [],
      work: Promise.resolve(),
      soon: false,
      met: false,
      audiences: new RecentMap(JOBS_KEPT),
      slot,
    };
    client.catchUp = catchUp;
    client.jobSeqs = new RecentMap<string, number>(JOBS_KEPT);
    // what the stream holds once the client is among those the shared subscription serves: every
    // job event after `end` reaches the client through the shared subscription
    const bounds = await this.options.bus.eventBounds(JOB_EVENTS);
    if (client.catchUp !== catchUp || client.sink.closed) return;
    // past the stream's end is a position in an earlier life of the stream: it starts at its first event
    const from = startSeq > bounds.lastSeq + 1 ? bounds.firstSeq : Math.max(startSeq, bounds.firstSeq);
    const windowStart = bounds.lastSeq + 1 - this.resume.window;
    const start = Math.max(from, windowStart, 1);
    // events after the client's id that the stream no longer holds (an id of this life of the stream)
    const expired = startSeq < bounds.firstSeq && startSeq <= bounds.lastSeq + 1;
    if (start > from) client.sink.push(gapFrame(startSeq - 1, start, { kind: 'window', window: this.resume.window }));
    else if (expired) client.sink.push(gapFrame(startSeq - 1, start, { kind: 'retention' }));
    catchUp.end = bounds.lastMatchingSeq;
    catchUp.position = catchUp.received = start - 1;
    // what the shared subscription relayed meanwhile from before that start was seen, or is in the gap
    catchUp.buffered = catchUp.buffered.filter((e) => e.seq >= start);
    if (catchUp.end < start) {
      this.goLive(client);
      return;
    }
    const subscription = await this.options.bus.consumeEvents(JOB_EVENTS, (raw) => this.readStored(client, catchUp, raw), {
      deliver: { startSeq: start },
    });
    if (client.catchUp === catchUp && !client.sink.closed) catchUp.subscription = subscription;
    else await subscription.unsubscribe().catch(() => undefined);
  }

  /** A stored event for a resumed stream: kept for the next batch, which the bus waits for when it is full. */
  private async readStored(client: StreamClient, catchUp: CatchUp, raw: BusEvent): Promise<void> {
    if (client.catchUp !== catchUp || client.sink.closed || catchUp.met) return;
    const first = catchUp.buffered[0];
    if (raw.seq > catchUp.end || (first !== undefined && raw.seq >= first.seq)) {
      // stored after the replay started, or buffered by the shared subscription: the shared one has it
      catchUp.met = true;
      await this.sendPending(client, catchUp);
      return;
    }
    catchUp.pending.push(raw);
    catchUp.received = raw.seq;
    if (raw.seq === catchUp.end) catchUp.met = true;
    if (catchUp.met || catchUp.pending.length >= REPLAY_BATCH) {
      await this.sendPending(client, catchUp);
    } else if (!catchUp.soon) {
      // the bus may not hand over more for a while: what is pending goes at the end of this turn
      catchUp.soon = true;
      setImmediate(() => {
        catchUp.soon = false;
        void this.sendPending(client, catchUp);
      });
    }
  }

  /** Sends what is pending, after what is being sent; then, once the stored events met the shared ones, the client goes live. */
  private sendPending(client: StreamClient, catchUp: CatchUp): Promise<void> {
    catchUp.work = catchUp.work.then(async () => {
      try {
        while (catchUp.pending.length > 0 && client.catchUp === catchUp && !client.sink.closed) {
          await this.replayBatch(client, catchUp, catchUp.pending.splice(0, REPLAY_BATCH));
        }
        if (catchUp.met && client.catchUp === catchUp && !client.sink.closed) this.goLive(client);
      } catch (err) {
        // the client reconnects with the id of the last event it got
        this.options.logger.warn({ err }, 'Replaying stored job events failed');
        client.sink.close();
      }
    });
    return catchUp.work;
  }

  /**
   * Sends a batch of stored events to a resumed stream as the live path would (the same filter,
   * audiences and repeats), asking who may see their jobs in one call, and waits for the client to
   * take them (and for the next turn of the event loop) before the next batch.
   */
  private async replayBatch(client: StreamClient, catchUp: CatchUp, raws: readonly BusEvent[]): Promise<void> {
    const { group, sink } = client;
    const events: HubEvent[] = [];
    for (let i = 0; i < raws.length; i++) {
      // parsing and masking are most of a replay's work: other clients get turns in between
      if (i > 0 && i % REPLAY_SLICE === 0) {
        await nextTurn();
        if (client.catchUp !== catchUp || sink.closed) return;
      }
      const e = prepare(raws[i] as BusEvent);
      if (e !== undefined && group.matches(e)) events.push(e);
    }
    if (!group.allJobs) {
      const unknown = new Set<string>();
      for (const e of events) {
        if (catchUp.audiences.has(e.jobId) || unknown.has(e.jobId)) continue;
        // those the live path knows are not asked again
        if (this.audiences.has(e.jobId)) catchUp.audiences.set(e.jobId, this.audiences.get(e.jobId) ?? null);
        else unknown.add(e.jobId);
      }
      await this.askAudiences([...unknown], (id, audience) => catchUp.audiences.set(id, audience));
    }
    for (const e of events) {
      if (client.catchUp !== catchUp || sink.closed) return;
      if (!group.allJobs) {
        const audience = catchUp.audiences.get(e.jobId);
        if (audience == null || !(audienceAdmitsGroups(audience, group.groups) || audienceAdmitsPerson(audience, client.caller))) continue;
      }
      if (e.jobSeq !== undefined) {
        if ((client.jobSeqs?.get(e.jobId) ?? 0) >= e.jobSeq) continue;
        client.jobSeqs?.set(e.jobId, e.jobSeq);
      }
      sink.push(e.frame);
      if (sink.queuedBytes >= REPLAY_CHUNK_BYTES) await sink.written(this.resume.stallMs);
    }
    catchUp.position = (raws[raws.length - 1] as BusEvent).seq;
    await sink.written(this.resume.stallMs);
    await nextTurn();
  }

  /** The resumed stream has met the shared one: what it buffered follows, and it reads no more stored events. */
  private goLive(client: StreamClient): void {
    const catchUp = client.catchUp;
    if (catchUp === undefined) return;
    delete client.catchUp;
    client.skipThrough = catchUp.position;
    catchUp.slot.release();
    // from within its own handler: the subscription is let go without waiting for that handler
    if (catchUp.subscription) void catchUp.subscription.unsubscribe().catch(() => undefined);
    for (const e of catchUp.buffered) this.live(client, e);
  }
}
