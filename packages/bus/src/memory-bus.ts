import type {
  Bus,
  BusEvent,
  BusHeaders,
  BusMessage,
  BusReply,
  EventBounds,
  EventConsumerOptions,
  EventSequences,
  OutgoingEvent,
  PublishedEvents,
  QueueJournal,
  QueuedEntry,
  QueueBacklog,
  RegisteredService,
  RequestOptions,
  ServiceInfo,
  ServiceRegistration,
  ServiceStats,
  Subscription,
  WorkQueueConsumerOptions,
} from './types';
import { AppError } from '@nap/contracts';
import type { WorkQueueName } from '@nap/contracts';
import { errorMessage } from '@nap/util';
import { isValidPattern, isValidSubject } from './subject-match';
import { closedError, invalidArgument, noRespondersError, timeoutError } from './internal/errors';
import { EventLog } from './internal/event-log';
import type { StoredEvent } from './internal/event-log';
import {
  assertEventFilter,
  assertEventSubject,
  checkConsumerOptions,
  resolveConsumerSettings,
  resolveStreamLimits,
} from './internal/events';
import type { EventConsumerSettings, EventStreamLimits, ResolvedConsumerSettings } from './internal/events';
import { assertValidHeaders, copyBytes, copyHeaders, trimHeaders } from './internal/headers';
import { SILENT_LOGGER } from './internal/logger';
import type { BusLogger } from './internal/logger';
import { DurableState, OrderedWorker, startSequence } from './internal/memory-events';
import type { EventWorker } from './internal/memory-events';
import { MemoryQueue } from './internal/memory-queue';
import { MemoryRouter, MemorySubscription } from './internal/memory-router';
import { MemoryService } from './internal/memory-service';
import { DEFAULT_DISCOVER_TIMEOUT_MS, assertName, assertValidRegistration, byNameThenId, toServiceInfo } from './internal/services';
import { isPromiseLike } from './internal/signal';

/** Options of {@link createMemoryBroker}. */
export interface MemoryBrokerOptions {
  /** Limits of the in-memory event stream. Defaults: 7 days, 1 GiB. */
  stream?: EventStreamLimits;
  /**
   * Where the work queues keep their entries across a crash (see {@link QueueJournal}); without one
   * an append resolves only once a consumer's handler has taken it.
   */
  queueJournal?: QueueJournal;
  /**
   * Where the event stream reserves its sequences, so that they keep rising across restarts (see
   * {@link EventSequences}); without it they start at 1 with each broker.
   */
  eventSequences?: EventSequences;
}

/** Event subjects a bus remembers as valid at most. */
const REMEMBERED_SUBJECTS = 1_024;

/** Sequences reserved at a time: one durable write per this many events. */
const SEQUENCE_BLOCK = 100_000;

/** Options of {@link createMemoryBus}. */
export interface MemoryBusOptions {
  /** The broker to join; buses on one broker see each other like clients of one NATS server. Defaults to a new broker. */
  broker?: MemoryBroker;
  /** Limits of the event stream when a new broker is created (ignored with `broker`). */
  stream?: EventStreamLimits;
  /** The work queues' journal when a new broker is created (ignored with `broker`); see {@link MemoryBrokerOptions}. */
  queueJournal?: QueueJournal;
  /** Where a new broker's event stream reserves its sequences (ignored with `broker`); see {@link MemoryBrokerOptions}. */
  eventSequences?: EventSequences;
  /** Redelivery of events whose handler threw. */
  events?: EventConsumerSettings;
  /** How long `close()` (and `RegisteredService.stop()`) wait for requests in flight. Defaults to 15 000 ms. */
  drainTimeoutMs?: number;
  logger?: BusLogger;
}

const DEFAULT_DRAIN_TIMEOUT_MS = 15_000;

/**
 * The in-process "server" of memory buses: subject routing with queue groups, the registry that
 * discovery reads, the event stream and its durable consumers. Several {@link MemoryBus}es on one
 * broker behave like several NATS connections to one server.
 */
export class MemoryBroker {
  /** @internal */
  readonly router = new MemoryRouter();
  /** @internal */
  readonly services = new Map<string, MemoryService>();
  /** @internal */
  readonly durables = new Map<string, DurableState>();
  /** @internal */
  readonly log: EventLog;
  /** @internal */
  readonly queues = new Map<WorkQueueName, MemoryQueue>();
  /** @internal */
  readonly queueJournal: QueueJournal | undefined;

  private readonly sequences: EventSequences | undefined;
  /** The last sequence this life may hand out without reserving more. */
  private reservedUpTo: number;
  /** The reservation in flight. */
  private reserving: Promise<void> | undefined;
  /** An event waits for a reservation: every later one waits behind it, so they keep their order. */
  private mustWait = false;

  constructor(options: MemoryBrokerOptions = {}) {
    const limits = resolveStreamLimits(options.stream);
    this.sequences = options.eventSequences;
    const first = this.sequences?.first ?? 1;
    this.log = new EventLog(limits.maxAgeMs, limits.maxBytes, Date.now, first);
    this.reservedUpTo = this.sequences === undefined ? Infinity : first - 1;
    this.queueJournal = options.queueJournal;
  }

  /**
   * @internal Whether `count` more events may be stored now: `undefined` when they may, else what
   * to await before asking again (a reservation of sequences, which rejects when it failed).
   * Past half of a reserved block the next block is reserved in the background.
   */
  roomFor(count: number): Promise<void> | undefined {
    if (this.sequences === undefined) return undefined;
    const needed = this.log.lastSequence + count;
    if (!this.mustWait && needed <= this.reservedUpTo) {
      // a background reservation that fails is tried again by the next event, which waits for it
      // once the block is used up and then hears the failure
      if (needed > this.reservedUpTo - SEQUENCE_BLOCK / 2) this.reserve(this.sequences, needed).catch(() => undefined);
      return undefined;
    }
    this.mustWait = true;
    return this.reserve(this.sequences, needed);
  }

  private reserve(sequences: EventSequences, needed: number): Promise<void> {
    this.reserving ??= (async () => {
      const upTo = Math.max(this.reservedUpTo, needed) + SEQUENCE_BLOCK;
      try {
        await sequences.reserve(upTo);
        this.reservedUpTo = Math.max(this.reservedUpTo, upTo);
      } catch (err) {
        throw new AppError('SERVICE_UNAVAILABLE', `The event stream could not reserve sequences: ${errorMessage(err)}`, { cause: err });
      } finally {
        this.reserving = undefined;
        this.mustWait = false;
      }
    })();
    return this.reserving;
  }

  /** Sequence of the last event stored (0 when none). */
  get lastEventSeq(): number {
    return this.log.lastSequence;
  }

  /** Number of events the stream keeps now (after age and size limits). */
  get eventCount(): number {
    return this.log.snapshot().length;
  }

  /** Bytes the stream keeps now, counted as JetStream's file store counts them. */
  get eventBytes(): number {
    return this.log.size;
  }
}

/** Creates an empty broker to share between memory buses. */
export function createMemoryBroker(options: MemoryBrokerOptions = {}): MemoryBroker {
  return new MemoryBroker(options);
}

/**
 * Creates an in-process bus with the semantics of {@link NatsBus}. Pass `broker` (for example
 * `otherBus.broker`) to put several buses, such as service replicas, on one broker.
 */
export function createMemoryBus(options: MemoryBusOptions = {}): MemoryBus {
  return new MemoryBus(options);
}

type StatusListener = (status: 'connected' | 'disconnected') => void;

/**
 * The bus in process, with the semantics of {@link NatsBus}: subject wildcards, queue groups,
 * request timeouts and no-responders errors, the services framework's discovery and stats, and a
 * durable event stream with ordered and durable consumers. Create it with {@link createMemoryBus}.
 */
export class MemoryBus implements Bus {
  readonly kind = 'memory' as const;
  /** The broker this bus is on; pass it to {@link createMemoryBus} to add another bus to it. */
  readonly broker: MemoryBroker;

  private readonly logger: BusLogger;
  private readonly consumerSettings: ResolvedConsumerSettings;
  private readonly drainTimeoutMs: number;
  private readonly listeners: StatusListener[] = [];
  private readonly services = new Set<MemoryService>();
  private readonly subscriptions = new Set<MemorySubscription>();
  private readonly workers = new Set<EventWorker>();
  private readonly pendingRequests = new Set<(err: Error) => void>();
  private closing: Promise<void> | undefined;
  private closed = false;
  /** Event subjects found valid lately (see {@link storeEvent}). */
  private readonly validSubjects = new Set<string>();

  constructor(options: MemoryBusOptions = {}) {
    this.broker =
      options.broker ??
      new MemoryBroker({ stream: options.stream, queueJournal: options.queueJournal, eventSequences: options.eventSequences });
    this.logger = options.logger ?? SILENT_LOGGER;
    this.consumerSettings = resolveConsumerSettings(options.events);
    this.drainTimeoutMs = options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;
  }

  isConnected(): boolean {
    return !this.closed;
  }

  /** Called with `disconnected` once the bus has closed; a memory bus never loses its broker otherwise. */
  onStatus(listener: StatusListener): void {
    this.listeners.push(listener);
  }

  /** Resolves at once: the broker has everything sent so far. Present to match {@link NatsBus.flush}. */
  async flush(): Promise<void> {
    if (this.closed) throw closedError('flush');
  }

  // ---- request / publish / subscribe ---------------------------------------------------------

  request(subject: string, data: Uint8Array, options: RequestOptions): Promise<BusReply> {
    try {
      if (!isValidSubject(subject)) throw invalidArgument(`Request subject "${subject}" is not valid`);
      if (!Number.isFinite(options.timeoutMs) || options.timeoutMs < 1)
        throw invalidArgument(`timeoutMs must be >= 1, got ${options.timeoutMs}`);
      assertValidHeaders(options.headers);
      if (this.closed) throw closedError(`send a request on "${subject}"`);
    } catch (err) {
      return Promise.reject(err);
    }
    const { timeoutMs } = options;
    return new Promise<BusReply>((resolve, reject) => {
      let settled = false;
      const settle = (outcome: () => void): void => {
        if (settled) return;
        settled = true;
        if (timer !== undefined) clearTimeout(timer);
        this.pendingRequests.delete(cancel);
        // like a reply off a socket: never inside the responder's call stack
        setImmediate(outcome);
      };
      const cancel = (err: Error): void => settle(() => reject(err));
      const reply = (replyData: Uint8Array, replyHeaders?: BusHeaders): void => {
        assertValidHeaders(replyHeaders);
        const answer: BusReply = { data: copyBytes(replyData), headers: copyHeaders(replyHeaders) };
        settle(() => resolve(answer));
      };
      this.pendingRequests.add(cancel);
      // deliveries run on a later turn, so nothing settles before the timer exists
      const receivers = this.broker.router.route(subject, data, options.headers, reply);
      const timer = receivers === 0 ? undefined : setTimeout(() => cancel(timeoutError(subject, timeoutMs)), timeoutMs);
      if (receivers === 0) cancel(noRespondersError(subject));
    });
  }

  publish(subject: string, data: Uint8Array, headers?: BusHeaders): void {
    if (!isValidSubject(subject)) throw invalidArgument(`Publish subject "${subject}" is not valid`);
    assertValidHeaders(headers);
    if (this.closed) throw closedError(`publish on "${subject}"`);
    this.broker.router.route(subject, data, headers);
  }

  subscribe(
    subject: string,
    handler: (msg: BusMessage & { reply?: (data: Uint8Array, headers?: BusHeaders) => void }) => void,
    options: { queue?: string } = {},
  ): Subscription {
    if (!isValidPattern(subject)) throw invalidArgument(`Subscription subject "${subject}" is not valid`);
    if (options.queue !== undefined && (options.queue === '' || /\s/.test(options.queue))) {
      throw invalidArgument(`Queue group "${options.queue}" is not valid`);
    }
    if (this.closing !== undefined) throw closedError(`subscribe to "${subject}"`);
    const sub = new MemorySubscription(subject, options.queue, (d) => {
      const message: BusMessage & { reply?: (data: Uint8Array, headers?: BusHeaders) => void } = {
        subject: d.subject,
        data: d.data,
        headers: d.headers,
      };
      if (d.reply !== undefined) message.reply = d.reply;
      try {
        const result: unknown = handler(message);
        if (isPromiseLike(result)) {
          result.then(undefined, (err: unknown) => this.logger.error({ err, subject: d.subject, pattern: subject }, 'subscriber failed'));
        }
      } catch (err) {
        this.logger.error({ err, subject: d.subject, pattern: subject }, 'subscriber threw');
      }
    });
    this.broker.router.add(sub);
    this.subscriptions.add(sub);
    return {
      unsubscribe: async () => {
        this.subscriptions.delete(sub);
        this.broker.router.remove(sub);
        await sub.drain();
      },
    };
  }

  // ---- services ------------------------------------------------------------------------------

  async addService(registration: ServiceRegistration): Promise<RegisteredService> {
    assertValidRegistration(registration);
    if (this.closing !== undefined) throw closedError(`add service "${registration.name}"`);
    const copy: ServiceRegistration = { ...registration, metadata: { ...registration.metadata }, endpoints: [...registration.endpoints] };
    const service: MemoryService = new MemoryService(copy, this.broker, this.drainTimeoutMs, this.logger, () =>
      this.services.delete(service),
    );
    this.services.add(service);
    return service;
  }

  async discover(name?: string, timeoutMs: number = DEFAULT_DISCOVER_TIMEOUT_MS): Promise<ServiceInfo[]> {
    return (await this.instances(name, timeoutMs)).map((s) => toServiceInfo(s.info)).sort(byNameThenId);
  }

  async stats(name?: string, timeoutMs: number = DEFAULT_DISCOVER_TIMEOUT_MS): Promise<ServiceStats[]> {
    return (await this.instances(name, timeoutMs)).map((s) => s.stats()).sort(byNameThenId);
  }

  private async instances(name: string | undefined, timeoutMs: number): Promise<MemoryService[]> {
    if (name !== undefined) assertName('Service', name);
    if (!Number.isFinite(timeoutMs) || timeoutMs < 1) throw invalidArgument(`timeoutMs must be >= 1, got ${timeoutMs}`);
    if (this.closed) throw closedError('discover services');
    // answers come back on a later turn, as replies off the network do
    await new Promise<void>((resolve) => setImmediate(resolve));
    return [...this.broker.services.values()].filter((s) => name === undefined || s.info.name === name);
  }

  // ---- events --------------------------------------------------------------------------------

  async publishEvent(subject: string, data: Uint8Array, headers?: BusHeaders): Promise<{ seq: number }> {
    for (let wait = this.broker.roomFor(1); wait !== undefined; wait = this.broker.roomFor(1)) await wait;
    return { seq: this.storeEvent(subject, copyBytes(data), headers) };
  }

  async publishEvents(events: readonly OutgoingEvent[]): Promise<PublishedEvents> {
    const seqs: number[] = [];
    try {
      for (let wait = this.broker.roomFor(events.length); wait !== undefined; wait = this.broker.roomFor(events.length)) await wait;
    } catch (error) {
      return { seqs, error };
    }
    for (const event of events) {
      try {
        const handedOver = event.handOver === true;
        seqs.push(this.storeEvent(event.subject, handedOver ? event.data : copyBytes(event.data), event.headers, handedOver));
      } catch (error) {
        return { seqs, error };
      }
    }
    return { seqs };
  }

  /** Stores an event; `data` is the bus's to keep (a copy, or bytes handed over), and `headers` too when `handedOver`. */
  private storeEvent(subject: string, data: Uint8Array, headers: BusHeaders | undefined, handedOver = false): number {
    // a subject found valid lately is not checked again: the events of a job share a few (bounded)
    if (!this.validSubjects.has(subject)) {
      assertEventSubject(subject);
      if (this.validSubjects.size >= REMEMBERED_SUBJECTS) this.validSubjects.clear();
      this.validSubjects.add(subject);
    }
    assertValidHeaders(headers);
    if (this.closed) throw closedError(`publish an event on "${subject}"`);
    const kept = handedOver && headers !== undefined ? trimHeaders(headers) : copyHeaders(headers);
    const event: StoredEvent = this.broker.log.append(subject, data, kept);
    return event.seq;
  }

  async consumeEvents(
    filter: string,
    handler: (event: BusEvent) => Promise<void> | void,
    options: EventConsumerOptions,
  ): Promise<Subscription> {
    assertEventFilter(filter);
    const delivery = checkConsumerOptions(options);
    if (this.closing !== undefined) throw closedError(`consume events on "${filter}"`);
    const { log, durables } = this.broker;
    let worker: EventWorker;
    const name = options.durableName;
    if (name === undefined) {
      worker = new OrderedWorker(log, filter, startSequence(log, delivery), handler, this.consumerSettings, this.logger);
    } else {
      let state = durables.get(name);
      if (state === undefined) {
        state = new DurableState(name, filter, startSequence(log, delivery), log, this.consumerSettings, this.logger);
        durables.set(name, state);
      }
      state.assertFilter(filter);
      worker = state.join(handler);
    }
    this.workers.add(worker);
    return {
      unsubscribe: async () => {
        this.workers.delete(worker);
        await worker.stop();
      },
    };
  }

  async eventBounds(filter: string): Promise<EventBounds> {
    assertEventFilter(filter);
    if (this.closing !== undefined) throw closedError(`read the bounds of the event stream for "${filter}"`);
    const { log } = this.broker;
    return { firstSeq: log.firstSequence, lastSeq: log.lastSequence, lastMatchingSeq: log.lastMatching(filter) };
  }

  // ---- work queues ---------------------------------------------------------------------------

  async appendToQueue(queue: WorkQueueName, id: string, data: Uint8Array): Promise<void> {
    if (this.closed) throw closedError(`append to the ${queue} queue`);
    await this.queue(queue).append(id, data);
  }

  async consumeQueue(
    queue: WorkQueueName,
    handler: (batch: QueuedEntry[]) => Promise<void>,
    options: WorkQueueConsumerOptions,
  ): Promise<Subscription> {
    if (this.closing !== undefined) throw closedError(`consume the ${queue} queue`);
    const memoryQueue = this.queue(queue);
    await memoryQueue.load();
    const subscription = memoryQueue.consume(handler, options);
    const worker: EventWorker = { stop: () => subscription.unsubscribe() };
    this.workers.add(worker);
    return {
      unsubscribe: async () => {
        this.workers.delete(worker);
        await worker.stop();
      },
    };
  }

  async queueHandled(queue: WorkQueueName, timeoutMs: number): Promise<void> {
    await this.queue(queue).handled(timeoutMs);
  }

  async queueBacklog(queue: WorkQueueName): Promise<QueueBacklog> {
    const oldestAt = this.broker.queues.get(queue)?.oldestAt();
    return oldestAt === undefined ? {} : { oldestAt };
  }

  private queue(name: WorkQueueName): MemoryQueue {
    let queue = this.broker.queues.get(name);
    if (queue === undefined) {
      queue = new MemoryQueue(name, this.logger, this.broker.queueJournal);
      this.broker.queues.set(name, queue);
    }
    return queue;
  }

  // ---- close ---------------------------------------------------------------------------------

  /**
   * Drains: stops services, subscriptions and event consumers (messages already routed are
   * handled), waits up to `drainTimeoutMs` for requests in flight to be answered, then closes.
   * Requests and publishes still work while in-flight work finishes.
   */
  close(): Promise<void> {
    this.closing ??= this.doClose();
    return this.closing;
  }

  private async doClose(): Promise<void> {
    await Promise.allSettled([...this.services].map((s) => s.stop()));
    await Promise.allSettled(
      [...this.subscriptions].map((s) => {
        this.broker.router.remove(s);
        return s.drain();
      }),
    );
    this.subscriptions.clear();
    await Promise.allSettled([...this.workers].map((w) => w.stop()));
    this.workers.clear();
    this.closed = true;
    for (const cancel of [...this.pendingRequests]) cancel(closedError('wait for a reply'));
    for (const listener of this.listeners) {
      try {
        listener('disconnected');
      } catch (err) {
        this.logger.error({ err }, 'bus status listener threw');
      }
    }
  }
}
