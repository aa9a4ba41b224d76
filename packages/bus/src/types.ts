import type { WorkQueueName } from '@nap/contracts';

/** Message headers; single-valued. Names are case-sensitive as NATS treats them. */
export type BusHeaders = Record<string, string>;

/** A message as a subscriber sees it. */
export interface BusMessage {
  subject: string;
  data: Uint8Array;
  headers: BusHeaders;
}

/** A reply received for a request. */
export interface BusReply {
  data: Uint8Array;
  headers: BusHeaders;
}

export interface RequestOptions {
  /** Time to wait for a reply; then the request fails with `TIMEOUT`. */
  timeoutMs: number;
  headers?: BusHeaders;
  /**
   * For a request that is safe to send twice (a read): when no reply has come after this many ms,
   * the request is sent again, to whichever replica the bus picks, and the first reply to either is
   * the answer (a hedged request). Over NATS a request delivered to a replica that dies before it
   * answers is lost, and without this its caller waits the whole timeout. The in-process bus loses
   * no request and ignores it.
   */
  hedgeAfterMs?: number;
}

/** A request as a service endpoint receives it; answer exactly once. */
export interface IncomingRequest extends BusMessage {
  respond(data: Uint8Array, headers?: BusHeaders): void;
  /**
   * Answers an error the services framework way: headers `Nats-Service-Error-Code` (an HTTP-like
   * status) and `Nats-Service-Error` (the message) and counts it in the endpoint's stats.
   */
  respondError(status: number, message: string, data: Uint8Array, headers?: BusHeaders): void;
}

export interface Subscription {
  unsubscribe(): Promise<void>;
}

export interface EndpointDef {
  /** Endpoint name as discovery shows it (the operation name). */
  name: string;
  subject: string;
  handler: (req: IncomingRequest) => void;
  metadata?: Record<string, string>;
}

export interface ServiceRegistration {
  name: string;
  version: string;
  description?: string;
  metadata?: Record<string, string>;
  /** Queue group shared by the replicas of the service; defaults to the service name. */
  queue?: string;
  endpoints: EndpointDef[];
  /** Register paused (in discovery, taking no requests until `resume()`): a replica of a service an operator stopped. */
  paused?: boolean;
}

/** What `$SRV.INFO` tells of one running instance. */
export interface ServiceInfo {
  name: string;
  id: string;
  version: string;
  description?: string;
  metadata: Record<string, string>;
  endpoints: { name: string; subject: string; queue_group?: string }[];
}

/** What `$SRV.STATS` tells of one running instance. */
export interface ServiceStats {
  name: string;
  id: string;
  version: string;
  /** ISO timestamp of the start of the instance. */
  started: string;
  endpoints: {
    name: string;
    subject: string;
    num_requests: number;
    num_errors: number;
    /** Nanoseconds, as NATS reports them. */
    processing_time: number;
    average_processing_time: number;
    last_error?: string;
  }[];
}

/** Whether a service instance takes requests (`running`) or has left its queue group (`paused`). */
export type ServiceInstanceState = 'running' | 'paused';

/**
 * Metadata member a paused instance shows in discovery (`'true'`): it still answers `$SRV.PING/INFO/STATS`,
 * with no endpoints, so an operator sees a replica that is alive but takes no work.
 */
export const PAUSED_METADATA_KEY = 'paused';

/**
 * Metadata member counting the registrations of one instance (`'1'`, `'2'`, …). Pausing and
 * resuming register anew before the old registration leaves, so for a moment discovery shows the
 * instance twice; the higher number is what it is now.
 */
export const REGISTRATION_METADATA_KEY = 'registration';

export interface RegisteredService {
  /**
   * Instance id in discovery. The services framework knows an instance by its registration, so
   * pausing and resuming register anew and the id changes (as after a restart).
   */
  readonly id: string;
  /** What discovery tells of the instance now (no endpoints while paused). */
  readonly info: ServiceInfo;
  readonly state: ServiceInstanceState;
  /**
   * Stops taking new requests: the endpoints leave the queue group (requests already received are
   * handled), then waits up to the bus's drain timeout for requests in flight. The instance stays
   * in discovery, paused: no endpoints and metadata `paused: 'true'`. Requests to its subjects go
   * to the other replicas, or fail at once with `SERVICE_UNAVAILABLE` when none is running.
   * Nothing happens when it is paused already.
   */
  pause(): Promise<void>;
  /** Takes requests again (joins the queue group with every endpoint). Nothing happens when it is running. */
  resume(): Promise<void>;
  /** Leaves discovery, stops taking requests and waits for those in flight; for good. */
  stop(): Promise<void>;
}

/** A durable event as a consumer receives it. */
export interface BusEvent extends BusMessage {
  /** Position in the event stream (JetStream sequence), increasing. */
  seq: number;
  /** Epoch ms when the event was stored. */
  timestamp: number;
}

/** An event to store (see {@link Bus.publishEvents}). */
export interface OutgoingEvent {
  subject: string;
  data: Uint8Array;
  headers?: BusHeaders;
  /**
   * The caller hands `data` and `headers` over: it made them for this event and never touches them
   * again, so the in-process bus keeps them as they are rather than copies of its own (its consumers
   * get copies either way).
   */
  handOver?: boolean;
}

/** What {@link Bus.publishEvents} stored: the sequences of the events stored, in order, and why the next one was not. */
export interface PublishedEvents {
  seqs: number[];
  /** The failure of the first event not stored (the later ones were not tried); absent when every one was stored. */
  error?: unknown;
}

/**
 * Where a consumer starts: every stored event, only new ones, at a sequence, or at a time. A
 * `startSeq` before the first stored event starts at the first stored one; a `startSeq` past the
 * stream's end (beyond the next sequence to come) is a position in an earlier life of the stream
 * (a stream created again, an in-process stream without reserved sequences after a restart): the
 * stream holds nothing the consumer has seen, so it starts at the first stored event too.
 */
export type EventDelivery = 'all' | 'new' | { startSeq: number } | { startTimeMs: number };

/** Where the event stream stands (see {@link Bus.eventBounds}). */
export interface EventBounds {
  /** Sequence of the first event the stream holds; the next sequence to come when it holds none. */
  firstSeq: number;
  /** Sequence of the last event stored (0 when none ever was). */
  lastSeq: number;
  /** Sequence of the last held event whose subject matches the filter asked about (0 when none does). */
  lastMatchingSeq: number;
}

export interface EventConsumerOptions {
  /** Where a new consumer starts; a durable consumer that exists resumes where it stopped. */
  deliver: EventDelivery;
  /** Named consumers remember their position across restarts and share the stream between replicas. */
  durableName?: string;
}

/** One entry of a work queue, as its consumer receives it. */
export interface QueuedEntry {
  /** The id it was appended with. */
  id: string;
  data: Uint8Array;
}

export interface WorkQueueConsumerOptions {
  /** The consumer the replicas share: each entry goes to one of them. */
  durableName: string;
  /** Most entries handed to the handler at once. Defaults to 256. */
  maxBatch?: number;
}

/** An entry a {@link QueueJournal} keeps, with the key it was kept under. */
export interface JournaledEntry extends QueuedEntry {
  key: string;
}

/**
 * Where the in-process event stream reserves its sequences, so that they keep rising across
 * restarts of the process as a JetStream stream's do (the standalone platform keeps the
 * reservation in a store). A client that resumes with the id of an event of the process before
 * then holds a position before everything the stream now holds, and gets all of it, instead of a
 * position that the new process's numbering would reach again only later. The stream hands out no
 * sequence before it is reserved: it reserves a block ahead, so that storing an event waits for a
 * reservation only once a block is used up before the next one was reserved.
 */
export interface EventSequences {
  /** The first sequence of this life of the stream: past every one an earlier life reserved. */
  readonly first: number;
  /** Durably reserves the sequences up to `upTo` for this life; resolves once they may be used. */
  reserve(upTo: number): Promise<void>;
}

/**
 * Where the in-process bus keeps the entries of its work queues across a crash of the process (the
 * standalone platform gives it a collection of a store). With one, an append is durable once the
 * journal has kept it, as JetStream's acknowledgement makes it on NATS, and the consumer takes it
 * after; an entry leaves the journal once a consumer's handler resolved, and what a crash left in it
 * is delivered again to the first consumer of the next start. As on NATS, an entry may so come
 * twice (handled, then the crash came before it left the journal): consumers keep an entry once by
 * its id.
 */
export interface QueueJournal {
  /** Keeps an entry of `queue`; resolves with its key once the entry survives a crash. */
  keep(queue: WorkQueueName, entry: QueuedEntry): Promise<string>;
  /**
   * The entries of `queue` kept and not released, in the order they were kept (a journal that keeps
   * entries together may return a released one with the others: consumers keep an entry once).
   */
  kept(queue: WorkQueueName): Promise<JournaledEntry[]>;
  /** Lets go of entries a consumer handled. */
  release(keys: readonly string[]): Promise<void>;
}

/**
 * The message bus: request/reply with timeouts and queue groups, publish/subscribe, service
 * discovery, and durable events. `NatsBus` and `MemoryBus` implement it with the same semantics.
 *
 * Errors: `request` rejects with `AppError` code `TIMEOUT` when no reply comes in time and
 * `SERVICE_UNAVAILABLE` when no subscriber listens on the subject (no responders).
 */
export interface Bus {
  readonly kind: 'nats' | 'memory';
  request(subject: string, data: Uint8Array, options: RequestOptions): Promise<BusReply>;
  publish(subject: string, data: Uint8Array, headers?: BusHeaders): void;
  /** Plain subscription; with `queue`, each message goes to one member of the group. */
  subscribe(
    subject: string,
    handler: (msg: BusMessage & { reply?: (data: Uint8Array, headers?: BusHeaders) => void }) => void,
    options?: { queue?: string },
  ): Subscription;
  /** Registers a service (NATS services framework) with its endpoints; replicas share its queue group. */
  addService(registration: ServiceRegistration): Promise<RegisteredService>;
  /** `$SRV.INFO` of every running instance (or of one service name), gathered for `timeoutMs`. */
  discover(name?: string, timeoutMs?: number): Promise<ServiceInfo[]>;
  /** `$SRV.STATS` of every running instance (or of one service name). */
  stats(name?: string, timeoutMs?: number): Promise<ServiceStats[]>;
  /** Stores an event durably (JetStream stream `NAP_EVENTS` on NATS) and delivers it to subscribers. */
  publishEvent(subject: string, data: Uint8Array, headers?: BusHeaders): Promise<{ seq: number }>;
  /**
   * Stores events as {@link publishEvent} does, in order, each once the one before it is stored, and
   * stops at the first that fails: never rejects, answers the sequences of those stored and the
   * failure. What it spares is the round of one call per event: the in-process bus stores them all
   * in one go; on NATS each still waits for JetStream's acknowledgement before the next is sent, so
   * that a failure never leaves a later event stored before an earlier one.
   */
  publishEvents(events: readonly OutgoingEvent[]): Promise<PublishedEvents>;
  /** Consumes durable events whose subject matches `filter` (NATS wildcards `*` and `>`). */
  consumeEvents(filter: string, handler: (event: BusEvent) => Promise<void> | void, options: EventConsumerOptions): Promise<Subscription>;
  /**
   * Where the event stream stands now: its first and last sequence, and the last held event whose
   * subject matches `filter` (NATS wildcards). A reader resuming from a position learns how far
   * behind it is and where the stored events it is to read end (events stored after the call have
   * higher sequences). On NATS, two requests to JetStream (stream info, last message of the subjects).
   *
   * Errors: `SERVICE_UNAVAILABLE` when JetStream cannot be asked.
   */
  eventBounds(filter: string): Promise<EventBounds>;
  /**
   * Appends an entry to work queue `queue` and resolves once it is durable. On NATS: once JetStream
   * has acknowledged it in the queue's stream (`NAP_QUEUE_<QUEUE>`: file storage, work-queue
   * retention, new entries refused when full rather than old ones dropped); the appends of one turn
   * of the event loop travel as one message, and an entry alone carries `id` as its `Nats-Msg-Id`
   * (a repeat within two minutes is dropped). Delivery is at least once: consumers keep an entry
   * once by its id. On the in-process bus: once its {@link QueueJournal} has kept it (the
   * standalone platform's); without a journal memory keeps nothing across a restart, so there it
   * resolves only once a consumer's handler has taken the entry (the handler is what stores it).
   *
   * Errors: `SERVICE_UNAVAILABLE` when the entry could not be made durable (JetStream unreachable or
   * full; on the in-process bus, no consumer, a journal that failed, or without a journal a handler
   * that threw).
   */
  appendToQueue(queue: WorkQueueName, id: string, data: Uint8Array): Promise<void>;
  /**
   * Consumes work queue `queue` in batches (entries that arrived while the handler ran come
   * together): a batch leaves the queue once the handler resolved; a batch whose handler threw is
   * delivered again later (after a delay, on NATS to whichever replica; in process without a
   * journal its appends fail instead).
   */
  consumeQueue(
    queue: WorkQueueName,
    handler: (batch: QueuedEntry[]) => Promise<void>,
    options: WorkQueueConsumerOptions,
  ): Promise<Subscription>;
  /**
   * Resolves once every entry of work queue `queue` whose append resolved before the call has been
   * handled by a consumer, or after `timeoutMs` when it has not: a read that follows a write sees
   * what the write appended (the audit trail's routes wait so). On the in-process bus with a journal
   * the consumer takes entries after their appends resolved; without one an append resolves only once
   * handled. Over NATS the consumers are other processes and JetStream's acknowledgement is all an
   * append promises: it resolves at once.
   */
  queueHandled(queue: WorkQueueName, timeoutMs: number): Promise<void>;
  /**
   * What work queue `queue` holds that no consumer has handled yet, for the platform's metrics: when
   * its oldest entry was appended (on the in-process bus, taken in: an entry a restart found in the
   * journal counts from the restart), and on NATS how full its stream is. Empty when it holds nothing.
   */
  queueBacklog(queue: WorkQueueName): Promise<QueueBacklog>;
  isConnected(): boolean;
  /** Calls `listener` when the connection state changes (NatsBus: disconnect/reconnect). */
  onStatus(listener: (status: 'connected' | 'disconnected') => void): void;
  /** Drains subscriptions and closes. */
  close(): Promise<void>;
}

/** See {@link Bus.queueBacklog}. */
export interface QueueBacklog {
  /** Epoch ms of the oldest entry not yet handled; undefined when none waits. */
  oldestAt?: number;
  /** NATS: the bytes the queue's stream holds over those it may hold (appends are refused at 1). */
  fill?: number;
}

/** JetStream stream that keeps `nap.evt.>`. */
export const EVENT_STREAM = 'NAP_EVENTS';
