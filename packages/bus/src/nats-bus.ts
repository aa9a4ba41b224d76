import { Svcm } from '@nats-io/services';
import type { NatsConnection } from '@nats-io/nats-core';
import type {
  Bus,
  BusEvent,
  BusHeaders,
  BusReply,
  EventBounds,
  EventConsumerOptions,
  OutgoingEvent,
  PublishedEvents,
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
import type { WorkQueueName } from '@nap/contracts';
import { resolveConsumerSettings } from './internal/events';
import type { EventConsumerSettings } from './internal/events';
import { SILENT_LOGGER } from './internal/logger';
import type { BusLogger } from './internal/logger';
import { NatsConnectionState, connectNats } from './internal/nats-connection';
import type { NatsConnectOptions, StatusListener } from './internal/nats-connection';
import { NatsDiscovery } from './internal/nats-discovery';
import { NatsEvents } from './internal/nats-events';
import { NatsRouter } from './internal/nats-router';
import type { RoutedMessage } from './internal/nats-router';
import { NatsServices } from './internal/nats-service';
import { NatsEventStream } from './internal/nats-stream';
import { NatsQueues } from './internal/nats-queue';
import { ReplyInbox } from './internal/nats-reply-inbox';
import type { NatsQueueOptions } from './internal/nats-queue';
import type { NatsEventStreamOptions } from './internal/nats-stream';

export type { NatsEventStreamOptions } from './internal/nats-stream';
export type { NatsQueueOptions } from './internal/nats-queue';

/** Options of {@link createNatsBus}: how to reach NATS, then the stream, the consumers and the drain. */
export interface NatsBusOptions extends NatsConnectOptions {
  /** Create or update the stream `NAP_EVENTS` on connect (and after each reconnect). Defaults to `true`. */
  ensureStream?: boolean;
  /** Limits of the stream `NAP_EVENTS`. Defaults: 7 days, 1 GiB, file storage, 1 replica. */
  stream?: NatsEventStreamOptions;
  /** Redelivery of events whose handler threw. */
  events?: EventConsumerSettings;
  /** Limits of the work queues' streams (`NAP_QUEUE_<QUEUE>`). Defaults: 1 GiB each, file storage, the event stream's replicas. */
  queues?: NatsQueueOptions;
  /** How long `close()` (and `RegisteredService.stop()`) wait for requests in flight. Defaults to 15 000 ms. */
  drainTimeoutMs?: number;
  /** How long `discover()`/`stats()` wait for more replies after the last one. Defaults to 100 ms. */
  discoverStallMs?: number;
  logger?: BusLogger;
}

const DEFAULT_DRAIN_TIMEOUT_MS = 15_000;
const DEFAULT_DISCOVER_STALL_MS = 100;

/**
 * Connects to NATS and returns a ready {@link NatsBus}: connected, and (unless `ensureStream` is
 * false) with the JetStream stream `NAP_EVENTS` on `nap.evt.>` created or updated to the limits.
 *
 * Errors: `SERVICE_UNAVAILABLE` when no server answers or JetStream is not enabled on it.
 */
export async function createNatsBus(options: NatsBusOptions): Promise<NatsBus> {
  const nc = await connectNats(options);
  const bus = new NatsBus(nc, options);
  try {
    if (options.ensureStream ?? true) await bus.ensureEventStream();
  } catch (err) {
    await nc.close().catch(() => undefined);
    throw err;
  }
  return bus;
}

/**
 * The bus over NATS: core request/reply and publish/subscribe (`internal/nats-router`), the
 * services framework for endpoints (`nats-service`) and discovery (`nats-discovery`), and
 * JetStream for durable events (`nats-stream`, `nats-events`), over one connection whose state
 * `nats-connection` follows. Create it with {@link createNatsBus}.
 */
export class NatsBus implements Bus {
  readonly kind = 'nats' as const;

  private readonly connection: NatsConnectionState;
  private readonly router: NatsRouter;
  private readonly services: NatsServices;
  private readonly discovery: NatsDiscovery;
  private readonly stream: NatsEventStream;
  private readonly events: NatsEvents;
  private readonly queues: NatsQueues;
  private readonly logger: BusLogger;
  private readonly drainTimeoutMs: number;
  private closing: Promise<void> | undefined;

  /** Wraps an open connection; prefer {@link createNatsBus}, which also ensures the event stream. */
  constructor(nc: NatsConnection, options: Omit<NatsBusOptions, 'servers' | 'name'> = {}) {
    const logger = options.logger ?? SILENT_LOGGER;
    const isClosing = (): boolean => this.closing !== undefined;
    const svcm = new Svcm(nc);
    this.logger = logger;
    this.drainTimeoutMs = options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;
    const consumerSettings = resolveConsumerSettings(options.events);
    this.stream = new NatsEventStream(nc, options.stream, logger);
    // one reply subscription for the connection: bus requests and JetStream's acknowledgements
    const replies = new ReplyInbox(nc);
    this.events = new NatsEvents(nc, this.stream, consumerSettings, logger, isClosing, replies);
    this.queues = new NatsQueues(nc, this.stream, { replicas: options.stream?.replicas, ...options.queues }, logger, isClosing, replies);
    this.services = new NatsServices(nc, svcm, this.drainTimeoutMs, logger, isClosing);
    this.discovery = new NatsDiscovery(svcm, options.discoverStallMs ?? DEFAULT_DISCOVER_STALL_MS);
    this.connection = new NatsConnectionState(nc, logger, () => {
      if ((options.ensureStream ?? true) && !isClosing()) {
        // a server that came back without its store needs the stream again
        this.queues.reset();
        this.ensureEventStream().catch((err: unknown) => this.logger.error({ err }, 'cannot ensure the event stream after reconnect'));
      }
    });
    this.router = new NatsRouter(nc, this.connection, logger, isClosing, replies);
  }

  isConnected(): boolean {
    return this.connection.isConnected();
  }

  onStatus(listener: StatusListener): void {
    this.connection.onStatus(listener);
  }

  /** Resolves once the server has processed everything sent so far (subscriptions included). */
  flush(): Promise<void> {
    return this.connection.flush();
  }

  request(subject: string, data: Uint8Array, options: RequestOptions): Promise<BusReply> {
    return this.router.request(subject, data, options);
  }

  publish(subject: string, data: Uint8Array, headers?: BusHeaders): void {
    this.router.publish(subject, data, headers);
  }

  subscribe(subject: string, handler: (msg: RoutedMessage) => void, options: { queue?: string } = {}): Subscription {
    return this.router.subscribe(subject, handler, options);
  }

  addService(registration: ServiceRegistration): Promise<RegisteredService> {
    return this.services.add(registration);
  }

  discover(name?: string, timeoutMs?: number): Promise<ServiceInfo[]> {
    return this.discovery.discover(name, timeoutMs);
  }

  stats(name?: string, timeoutMs?: number): Promise<ServiceStats[]> {
    return this.discovery.stats(name, timeoutMs);
  }

  /**
   * Creates the stream `NAP_EVENTS` on `nap.evt.>` or brings its subjects and limits to the
   * configured ones. Called by {@link createNatsBus} and after each reconnect.
   *
   * Errors: `SERVICE_UNAVAILABLE` when JetStream is not enabled or does not answer.
   */
  ensureEventStream(): Promise<void> {
    return this.stream.ensure();
  }

  publishEvent(subject: string, data: Uint8Array, headers?: BusHeaders): Promise<{ seq: number }> {
    return this.events.publish(subject, data, headers);
  }

  async publishEvents(events: readonly OutgoingEvent[]): Promise<PublishedEvents> {
    const seqs: number[] = [];
    for (const event of events) {
      try {
        seqs.push((await this.events.publish(event.subject, event.data, event.headers)).seq);
      } catch (error) {
        return { seqs, error };
      }
    }
    return { seqs };
  }

  consumeEvents(filter: string, handler: (event: BusEvent) => Promise<void> | void, options: EventConsumerOptions): Promise<Subscription> {
    return this.events.consume(filter, handler, options);
  }

  eventBounds(filter: string): Promise<EventBounds> {
    return this.events.bounds(filter);
  }

  appendToQueue(queue: WorkQueueName, id: string, data: Uint8Array): Promise<void> {
    return this.queues.append(queue, id, data);
  }

  consumeQueue(
    queue: WorkQueueName,
    handler: (batch: QueuedEntry[]) => Promise<void>,
    options: WorkQueueConsumerOptions,
  ): Promise<Subscription> {
    return this.queues.consume(queue, handler, options);
  }

  queueBacklog(queue: WorkQueueName): Promise<QueueBacklog> {
    return this.queues.backlog(queue);
  }

  /** Resolves at once: JetStream's acknowledgement is all an append promises, and the consumers are other processes. */
  async queueHandled(_queue: WorkQueueName, _timeoutMs: number): Promise<void> {
    // nothing to wait for
  }

  /**
   * Drains: stops services, subscriptions and event consumers (messages already received are
   * handled), waits up to `drainTimeoutMs` for requests in flight to be answered, then drains and
   * closes the connection. Requests and publishes still work while in-flight work finishes.
   */
  close(): Promise<void> {
    this.closing ??= this.doClose();
    return this.closing;
  }

  private async doClose(): Promise<void> {
    await this.services.stopAll();
    await this.router.drainAll();
    await this.events.stopAll();
    await this.queues.stopAll();
    await this.connection.drain(this.drainTimeoutMs);
  }
}
