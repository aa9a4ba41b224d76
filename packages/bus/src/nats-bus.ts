import { AppError } from '@nap/contracts';
import { errorMessage, sleep } from '@nap/util';
import { connect } from '@nats-io/transport-node';
import { nanos } from '@nats-io/nats-core';
import type { Msg, NatsConnection, Subscription as NatsSubscription } from '@nats-io/nats-core';
import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  RetentionPolicy,
  StorageType,
  jetstream,
  jetstreamManager,
} from '@nats-io/jetstream';
import type {
  Consumer,
  ConsumerConfig,
  ConsumerInfo,
  ConsumerMessages,
  JetStreamClient,
  JetStreamManager,
  JsMsg,
  OrderedConsumerOptions,
  StreamConfig,
  StreamInfo,
} from '@nats-io/jetstream';
import { Svcm } from '@nats-io/services';
import type { Service, ServiceMsg } from '@nats-io/services';
import { EVENT_STREAM, PAUSED_METADATA_KEY } from './types';
import type {
  Bus,
  BusEvent,
  BusHeaders,
  BusMessage,
  BusReply,
  EndpointDef,
  EventConsumerOptions,
  IncomingRequest,
  RegisteredService,
  RequestOptions,
  ServiceInfo,
  ServiceInstanceState,
  ServiceRegistration,
  ServiceStats,
  Subscription,
} from './types';
import { isValidPattern, isValidSubject } from './subject-match';
import { closedError, invalidArgument } from './internal/errors';
import {
  EVENT_SUBJECTS,
  assertEventFilter,
  assertEventSubject,
  checkConsumerOptions,
  resolveConsumerSettings,
  resolveStreamLimits,
} from './internal/events';
import type { CheckedDelivery, EventConsumerSettings, EventStreamLimits, ResolvedConsumerSettings } from './internal/events';
import { endpointCounters } from './internal/framework-stats';
import type { EndpointCounters } from './internal/framework-stats';
import { copyBytes, toHeaderValue } from './internal/headers';
import { InFlight } from './internal/in-flight';
import { SILENT_LOGGER } from './internal/logger';
import type { BusLogger } from './internal/logger';
import { fromNatsHeaders, isConnectionGone, isNoResponders, requestFailure, toNatsHeaders } from './internal/nats-convert';
import {
  DEFAULT_DISCOVER_TIMEOUT_MS,
  assertName,
  assertValidRegistration,
  byNameThenId,
  invokeEndpoint,
  toServiceInfo,
  toServiceStats,
} from './internal/services';
import { isPromiseLike } from './internal/signal';
import { SerialTransitions } from './internal/transitions';

export type { BusLogger } from './internal/logger';
export type { EventConsumerSettings, EventStreamLimits } from './internal/events';

/** The JetStream stream that keeps events, as `createNatsBus` ensures it. */
export interface NatsEventStreamOptions extends EventStreamLimits {
  /** Defaults to `file`. */
  storage?: 'file' | 'memory';
  /** Stream replicas in a NATS cluster. Defaults to 1. */
  replicas?: number;
}

/** Options of {@link createNatsBus}. */
export interface NatsBusOptions {
  /** NATS server URL(s), e.g. `nats://127.0.0.1:4222`. */
  servers: string | string[];
  /** Connection name as the server shows it (the service name). */
  name: string;
  /** User and password, when the server requires them. */
  user?: string;
  pass?: string;
  /** Token, when the server requires one. */
  token?: string;
  /** Wait between reconnect attempts; the bus reconnects forever. Defaults to 2000 ms. */
  reconnectTimeWaitMs?: number;
  /** Timeout of the first connection attempt. Defaults to 10 000 ms. */
  connectTimeoutMs?: number;
  /** Keep trying when no server answers at start instead of failing. Defaults to `false`. */
  waitOnFirstConnect?: boolean;
  /** Create or update the stream `NAP_EVENTS` on connect (and after each reconnect). Defaults to `true`. */
  ensureStream?: boolean;
  /** Limits of the stream `NAP_EVENTS`. Defaults: 7 days, 1 GiB, file storage, 1 replica. */
  stream?: NatsEventStreamOptions;
  /** Redelivery of events whose handler threw. */
  events?: EventConsumerSettings;
  /** How long `close()` (and `RegisteredService.stop()`) wait for requests in flight. Defaults to 15 000 ms. */
  drainTimeoutMs?: number;
  /** How long `discover()`/`stats()` wait for more replies after the last one. Defaults to 100 ms. */
  discoverStallMs?: number;
  logger?: BusLogger;
}

const DEFAULT_RECONNECT_TIME_WAIT_MS = 2000;
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_DRAIN_TIMEOUT_MS = 15_000;
const DEFAULT_DISCOVER_STALL_MS = 100;
/**
 * Messages a durable consumer pulls at a time. One, so replicas share the stream evenly and an
 * event never waits in one replica's buffer (its ack clock running) while another replica idles.
 */
const DURABLE_PULL_BATCH = 1;
const ORDERED_PULL_BATCH = 100;

type StatusListener = (status: 'connected' | 'disconnected') => void;

interface EventConsumerHandle {
  stop(): Promise<void>;
}

/**
 * Connects to NATS and returns a ready {@link NatsBus}: connected, and (unless `ensureStream` is
 * false) with the JetStream stream `NAP_EVENTS` on `nap.evt.>` created or updated to the limits.
 *
 * Errors: `SERVICE_UNAVAILABLE` when no server answers or JetStream is not enabled on it.
 */
export async function createNatsBus(options: NatsBusOptions): Promise<NatsBus> {
  const servers = Array.isArray(options.servers) ? options.servers : [options.servers];
  let nc: NatsConnection;
  try {
    nc = await connect({
      servers,
      name: options.name,
      user: options.user,
      pass: options.pass,
      token: options.token,
      reconnect: true,
      maxReconnectAttempts: -1,
      reconnectTimeWait: options.reconnectTimeWaitMs ?? DEFAULT_RECONNECT_TIME_WAIT_MS,
      timeout: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      waitOnFirstConnect: options.waitOnFirstConnect ?? false,
    });
  } catch (err) {
    throw new AppError('SERVICE_UNAVAILABLE', `Cannot connect to NATS at ${servers.join(', ')}: ${errorMessage(err)}`, { cause: err });
  }
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
 * The bus over NATS: core request/reply and publish/subscribe, the services framework
 * (`@nats-io/services`) for endpoints and discovery, and JetStream for durable events.
 * Create it with {@link createNatsBus}.
 */
export class NatsBus implements Bus {
  readonly kind = 'nats' as const;

  private readonly svcm: Svcm;
  private readonly js: JetStreamClient;
  private jsm: JetStreamManager | undefined;
  private readonly logger: BusLogger;
  private readonly consumerSettings: ResolvedConsumerSettings;
  private readonly streamOptions: Required<NatsEventStreamOptions>;
  private readonly drainTimeoutMs: number;
  private readonly discoverStallMs: number;
  private readonly listeners: StatusListener[] = [];
  private readonly services = new Set<NatsRegisteredService>();
  private readonly subscriptions = new Set<NatsSubscription>();
  private readonly consumers = new Set<EventConsumerHandle>();
  private connected = true;
  private closing: Promise<void> | undefined;

  /** Wraps an open connection; prefer {@link createNatsBus}, which also ensures the event stream. */
  constructor(
    private readonly nc: NatsConnection,
    private readonly options: Omit<NatsBusOptions, 'servers' | 'name'> = {},
  ) {
    this.svcm = new Svcm(nc);
    this.js = jetstream(nc);
    this.logger = options.logger ?? SILENT_LOGGER;
    this.consumerSettings = resolveConsumerSettings(options.events);
    this.streamOptions = {
      ...resolveStreamLimits(options.stream),
      storage: options.stream?.storage ?? 'file',
      replicas: options.stream?.replicas ?? 1,
    };
    this.drainTimeoutMs = options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;
    this.discoverStallMs = options.discoverStallMs ?? DEFAULT_DISCOVER_STALL_MS;
    void this.watchStatus();
  }

  // ---- connection -------------------------------------------------------------------------

  isConnected(): boolean {
    return this.connected && !this.nc.isClosed();
  }

  onStatus(listener: StatusListener): void {
    this.listeners.push(listener);
  }

  /** Resolves once the server has processed everything sent so far (subscriptions included). */
  async flush(): Promise<void> {
    try {
      await this.nc.flush();
    } catch (err) {
      throw closedError('flush', err);
    }
  }

  private setConnected(connected: boolean): void {
    if (this.connected === connected) return;
    this.connected = connected;
    for (const listener of this.listeners) {
      try {
        listener(connected ? 'connected' : 'disconnected');
      } catch (err) {
        this.logger.error({ err }, 'bus status listener threw');
      }
    }
  }

  private async watchStatus(): Promise<void> {
    void this.nc.closed().then(() => this.setConnected(false));
    for await (const status of this.nc.status()) {
      if (status.type === 'disconnect') {
        this.logger.warn({ server: status.server }, 'NATS connection lost; reconnecting');
        this.setConnected(false);
      } else if (status.type === 'reconnect') {
        this.logger.info({ server: status.server }, 'NATS connection restored');
        this.setConnected(true);
        if ((this.options.ensureStream ?? true) && this.closing === undefined) {
          // a server that came back without its store needs the stream again
          this.ensureEventStream().catch((err: unknown) => this.logger.error({ err }, 'cannot ensure the event stream after reconnect'));
        }
      }
    }
  }

  // ---- request / publish / subscribe ---------------------------------------------------------

  async request(subject: string, data: Uint8Array, options: RequestOptions): Promise<BusReply> {
    if (!isValidSubject(subject)) throw invalidArgument(`Request subject "${subject}" is not valid`);
    const { timeoutMs } = options;
    if (!Number.isFinite(timeoutMs) || timeoutMs < 1) throw invalidArgument(`timeoutMs must be >= 1, got ${timeoutMs}`);
    // while NATS is away nobody can answer: say so at once rather than after the whole timeout
    if (!this.isConnected())
      throw new AppError('SERVICE_UNAVAILABLE', `The message bus is disconnected; "${subject}" cannot be reached until it reconnects`);
    const headers = toNatsHeaders(options.headers);
    let reply: Msg;
    try {
      reply = await this.nc.request(subject, copyBytes(data), { timeout: timeoutMs, headers });
    } catch (err) {
      throw requestFailure(err, subject, timeoutMs);
    }
    return { data: reply.data, headers: fromNatsHeaders(reply.headers) };
  }

  publish(subject: string, data: Uint8Array, headers?: BusHeaders): void {
    if (!isValidSubject(subject)) throw invalidArgument(`Publish subject "${subject}" is not valid`);
    const h = toNatsHeaders(headers);
    try {
      this.nc.publish(subject, copyBytes(data), { headers: h });
    } catch (err) {
      throw closedError(`publish on "${subject}"`, err);
    }
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
    let sub: NatsSubscription;
    try {
      sub = this.nc.subscribe(subject, {
        queue: options.queue,
        callback: (err, msg) => {
          if (err) {
            this.logger.error({ err, subject }, 'subscription failed');
            return;
          }
          this.deliver(subject, msg, handler);
        },
      });
    } catch (err) {
      throw closedError(`subscribe to "${subject}"`, err);
    }
    this.subscriptions.add(sub);
    return {
      unsubscribe: async () => {
        this.subscriptions.delete(sub);
        await this.drainSubscription(sub);
      },
    };
  }

  private deliver(
    pattern: string,
    msg: Msg,
    handler: (msg: BusMessage & { reply?: (data: Uint8Array, headers?: BusHeaders) => void }) => void,
  ): void {
    const message: BusMessage & { reply?: (data: Uint8Array, headers?: BusHeaders) => void } = {
      subject: msg.subject,
      data: msg.data,
      headers: fromNatsHeaders(msg.headers),
    };
    const replyTo = msg.reply;
    if (replyTo !== undefined && replyTo !== '') {
      message.reply = (data, headers) => this.publish(replyTo, data, headers);
    }
    try {
      const result: unknown = handler(message);
      if (isPromiseLike(result)) {
        result.then(undefined, (err: unknown) => this.logger.error({ err, subject: msg.subject, pattern }, 'subscriber failed'));
      }
    } catch (err) {
      this.logger.error({ err, subject: msg.subject, pattern }, 'subscriber threw');
    }
  }

  private async drainSubscription(sub: NatsSubscription): Promise<void> {
    if (this.nc.isClosed() || sub.isClosed() || sub.isDraining()) return;
    try {
      await sub.drain();
    } catch (err) {
      if (!isConnectionGone(err)) throw err;
    }
  }

  // ---- services ------------------------------------------------------------------------------

  async addService(registration: ServiceRegistration): Promise<RegisteredService> {
    assertValidRegistration(registration);
    if (this.closing !== undefined) throw closedError(`add service "${registration.name}"`);
    const inFlight = new InFlight();
    const paused = registration.paused === true;
    const service = await this.registerService(registration, inFlight, paused);
    const registered: NatsRegisteredService = new NatsRegisteredService(
      service,
      paused,
      (paused) => this.registerService(registration, inFlight, paused),
      inFlight,
      this.drainTimeoutMs,
      this.logger,
      () => this.services.delete(registered),
    );
    this.services.add(registered);
    return registered;
  }

  /**
   * One registration with the services framework: every endpoint, or (paused) none and metadata
   * `paused: 'true'`, so that the instance answers discovery but takes no requests.
   */
  private async registerService(registration: ServiceRegistration, inFlight: InFlight, paused: boolean): Promise<Service> {
    let service: Service | undefined;
    try {
      service = await this.svcm.add({
        name: registration.name,
        version: registration.version,
        description: registration.description,
        metadata: { ...registration.metadata, ...(paused ? { [PAUSED_METADATA_KEY]: 'true' } : {}) },
        queue: registration.queue ?? registration.name,
      });
      const svc = service;
      for (const endpoint of paused ? [] : registration.endpoints) {
        let counters: EndpointCounters | undefined;
        svc.addEndpoint(endpoint.name, {
          subject: endpoint.subject,
          metadata: endpoint.metadata,
          handler: (err, msg) => {
            if (err) {
              this.logger.error({ err, endpoint: endpoint.subject }, 'service endpoint failed');
              return;
            }
            counters ??= endpointCounters(svc, endpoint.name);
            this.handleServiceRequest(endpoint, msg, counters, inFlight);
          },
        });
      }
      // the endpoints are subscribed at the server before the caller sends the first request
      await this.nc.flush();
    } catch (err) {
      await service?.stop().catch(() => undefined);
      throw closedError(`add service "${registration.name}"`, err);
    }
    return service;
  }

  private handleServiceRequest(endpoint: EndpointDef, msg: ServiceMsg, counters: EndpointCounters, inFlight: InFlight): void {
    const started = process.hrtime.bigint();
    const end = inFlight.begin();
    let answered = false;
    const finish = (): void => {
      answered = true;
      counters.addProcessingNanos(Number(process.hrtime.bigint() - started));
      end();
    };
    const request: IncomingRequest = {
      subject: msg.subject,
      data: msg.data,
      headers: fromNatsHeaders(msg.headers),
      respond: (data, headers) => {
        if (answered) return;
        const h = toNatsHeaders(headers);
        finish();
        try {
          msg.respond(copyBytes(data), { headers: h });
        } catch (err) {
          this.logger.warn({ err, subject: msg.subject }, 'cannot send reply');
        }
      },
      respondError: (status, message, data, headers) => {
        if (answered) return;
        const h = toNatsHeaders(headers);
        finish();
        counters.countError(status, message);
        try {
          msg.respondError(status, toHeaderValue(message), copyBytes(data), { headers: h });
        } catch (err) {
          this.logger.warn({ err, subject: msg.subject }, 'cannot send error reply');
        }
      },
    };
    invokeEndpoint(endpoint, request, this.logger);
  }

  async discover(name?: string, timeoutMs: number = DEFAULT_DISCOVER_TIMEOUT_MS): Promise<ServiceInfo[]> {
    const replies = await this.gather('info', name, timeoutMs);
    return replies.map(toServiceInfo).sort(byNameThenId);
  }

  async stats(name?: string, timeoutMs: number = DEFAULT_DISCOVER_TIMEOUT_MS): Promise<ServiceStats[]> {
    const replies = await this.gather('stats', name, timeoutMs);
    return replies.map(toServiceStats).sort(byNameThenId);
  }

  /** `$SRV.INFO|STATS[.name]` through the framework's client; no responders means no instances. */
  private async gather(verb: 'info' | 'stats', name: string | undefined, timeoutMs: number): Promise<unknown[]> {
    if (name !== undefined) assertName('Service', name);
    if (!Number.isFinite(timeoutMs) || timeoutMs < 1) throw invalidArgument(`timeoutMs must be >= 1, got ${timeoutMs}`);
    const client = this.svcm.client({ strategy: 'stall', maxWait: timeoutMs, stall: Math.min(timeoutMs, this.discoverStallMs) });
    const out: unknown[] = [];
    try {
      const replies = verb === 'info' ? await client.info(name) : await client.stats(name);
      for await (const reply of replies) out.push(reply);
    } catch (err) {
      if (isNoResponders(err)) return out;
      throw requestFailure(err, `$SRV.${verb.toUpperCase()}`, timeoutMs);
    }
    return out;
  }

  // ---- events --------------------------------------------------------------------------------

  /**
   * Creates the stream `NAP_EVENTS` on `nap.evt.>` or brings its subjects and limits to the
   * configured ones. Called by {@link createNatsBus} and after each reconnect.
   *
   * Errors: `SERVICE_UNAVAILABLE` when JetStream is not enabled or does not answer.
   */
  async ensureEventStream(): Promise<void> {
    const { maxAgeMs, maxBytes, storage, replicas } = this.streamOptions;
    const wanted: Partial<StreamConfig> & { name: string } = {
      name: EVENT_STREAM,
      subjects: [EVENT_SUBJECTS],
      retention: RetentionPolicy.Limits,
      storage: storage === 'memory' ? StorageType.Memory : StorageType.File,
      discard: DiscardPolicy.Old,
      max_age: nanos(maxAgeMs),
      max_bytes: maxBytes,
      num_replicas: replicas,
    };
    try {
      const jsm = await this.manager();
      // replicas starting together race to create it: whoever loses finds it on the next round
      for (let attempt = 1; ; attempt++) {
        let info: StreamInfo | undefined;
        try {
          info = await jsm.streams.info(EVENT_STREAM);
        } catch (err) {
          if (!(err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound)) throw err;
        }
        try {
          if (info === undefined) {
            await jsm.streams.add(wanted);
          } else {
            await this.alignStream(jsm, info, wanted);
          }
          return;
        } catch (err) {
          if (attempt >= 3) throw err;
        }
      }
    } catch (err) {
      throw new AppError(
        'SERVICE_UNAVAILABLE',
        `Cannot ensure the JetStream stream ${EVENT_STREAM} (is JetStream enabled? start nats-server with -js): ${errorMessage(err)}`,
        { cause: err },
      );
    }
  }

  /** Brings an existing stream's subjects and limits to the configured ones. */
  private async alignStream(jsm: JetStreamManager, info: StreamInfo, wanted: Partial<StreamConfig>): Promise<void> {
    const c = info.config;
    if (c.max_age !== wanted.max_age || c.max_bytes !== wanted.max_bytes || c.subjects.length !== 1 || c.subjects[0] !== EVENT_SUBJECTS) {
      await jsm.streams.update(EVENT_STREAM, { ...c, subjects: [EVENT_SUBJECTS], max_age: wanted.max_age, max_bytes: wanted.max_bytes });
    }
    if (c.storage !== wanted.storage) {
      this.logger.warn(
        { stream: EVENT_STREAM, storage: c.storage },
        'event stream storage differs from the configured one and cannot be changed',
      );
    }
  }

  private async manager(): Promise<JetStreamManager> {
    this.jsm ??= await jetstreamManager(this.nc);
    return this.jsm;
  }

  async publishEvent(subject: string, data: Uint8Array, headers?: BusHeaders): Promise<{ seq: number }> {
    assertEventSubject(subject);
    const h = toNatsHeaders(headers);
    try {
      const ack = await this.js.publish(subject, copyBytes(data), { headers: h });
      return { seq: ack.seq };
    } catch (err) {
      if (isNoResponders(err)) {
        throw new AppError('SERVICE_UNAVAILABLE', `No JetStream stream stores "${subject}"; is the stream ${EVENT_STREAM} missing?`, {
          cause: err,
        });
      }
      throw requestFailure(err, subject, 0);
    }
  }

  async consumeEvents(
    filter: string,
    handler: (event: BusEvent) => Promise<void> | void,
    options: EventConsumerOptions,
  ): Promise<Subscription> {
    assertEventFilter(filter);
    const delivery = checkConsumerOptions(options);
    if (this.closing !== undefined) throw closedError(`consume events on "${filter}"`);
    const durable = options.durableName;
    let consumer: Consumer;
    try {
      consumer =
        durable === undefined ? await this.orderedConsumer(filter, delivery) : await this.durableConsumer(durable, filter, delivery);
    } catch (err) {
      if (err instanceof AppError) throw err;
      throw new AppError('SERVICE_UNAVAILABLE', `Cannot create a consumer of ${EVENT_STREAM} for "${filter}": ${errorMessage(err)}`, {
        cause: err,
      });
    }
    const messages = await consumer.consume({ max_messages: durable === undefined ? ORDERED_PULL_BATCH : DURABLE_PULL_BATCH });
    const worker = new NatsEventWorker(messages, handler, durable !== undefined, this.consumerSettings, this.logger, filter);
    let stopping: Promise<void> | undefined;
    const handle: EventConsumerHandle = {
      stop: () =>
        (stopping ??= (async () => {
          await worker.stop();
          // an ordered consumer is of no use to anyone else; the server would drop it after 5 minutes
          if (durable === undefined && !this.nc.isClosed()) await consumer.delete().catch(() => undefined);
        })()),
    };
    this.consumers.add(handle);
    return {
      unsubscribe: async () => {
        this.consumers.delete(handle);
        await handle.stop();
      },
    };
  }

  private async orderedConsumer(filter: string, delivery: CheckedDelivery): Promise<Consumer> {
    const opts: Partial<OrderedConsumerOptions> = { filter_subjects: filter };
    switch (delivery.kind) {
      case 'all':
        opts.deliver_policy = DeliverPolicy.All;
        break;
      case 'new':
        opts.deliver_policy = DeliverPolicy.New;
        break;
      case 'startSeq':
        opts.deliver_policy = DeliverPolicy.StartSequence;
        opts.opt_start_seq = delivery.seq;
        break;
      case 'startTime':
        opts.deliver_policy = DeliverPolicy.StartTime;
        opts.opt_start_time = new Date(delivery.timeMs).toISOString();
        break;
    }
    return this.js.consumers.get(EVENT_STREAM, opts);
  }

  private async durableConsumer(name: string, filter: string, delivery: CheckedDelivery): Promise<Consumer> {
    const jsm = await this.manager();
    let info: ConsumerInfo | undefined = await this.consumerInfo(jsm, name);
    if (info === undefined) {
      const config: Partial<ConsumerConfig> = {
        durable_name: name,
        ack_policy: AckPolicy.Explicit,
        filter_subject: filter,
        max_deliver: this.consumerSettings.maxDeliver,
        ack_wait: nanos(this.consumerSettings.ackWaitMs),
      };
      switch (delivery.kind) {
        case 'all':
          config.deliver_policy = DeliverPolicy.All;
          break;
        case 'new':
          config.deliver_policy = DeliverPolicy.New;
          break;
        case 'startSeq':
          config.deliver_policy = DeliverPolicy.StartSequence;
          config.opt_start_seq = delivery.seq;
          break;
        case 'startTime':
          config.deliver_policy = DeliverPolicy.StartTime;
          config.opt_start_time = new Date(delivery.timeMs).toISOString();
          break;
      }
      try {
        info = await jsm.consumers.add(EVENT_STREAM, config);
      } catch (err) {
        // another replica may have created it meanwhile
        info = await this.consumerInfo(jsm, name);
        if (info === undefined) throw err;
      }
    }
    const existingFilter = info.config.filter_subject ?? '';
    if (existingFilter !== filter) {
      throw new AppError('CONFLICT', `Durable consumer "${name}" exists with filter "${existingFilter}"; it cannot consume "${filter}"`);
    }
    return this.js.consumers.getConsumerFromInfo(info);
  }

  private async consumerInfo(jsm: JetStreamManager, name: string): Promise<ConsumerInfo | undefined> {
    try {
      return await jsm.consumers.info(EVENT_STREAM, name);
    } catch (err) {
      if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.ConsumerNotFound) return undefined;
      throw err;
    }
  }

  // ---- close ---------------------------------------------------------------------------------

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
    await Promise.allSettled([...this.services].map((s) => s.stop()));
    await Promise.allSettled([...this.subscriptions].map((s) => this.drainSubscription(s)));
    this.subscriptions.clear();
    await Promise.allSettled([...this.consumers].map((c) => c.stop()));
    this.consumers.clear();
    if (this.nc.isClosed()) return;
    const drained = this.nc.drain().then(
      () => true,
      () => false,
    );
    const ok = await Promise.race([drained, sleep(this.drainTimeoutMs).then(() => false)]);
    if (!ok && !this.nc.isClosed()) await this.nc.close().catch(() => undefined);
    this.setConnected(false);
  }
}

/**
 * One registered service instance on NATS. Pausing and resuming register anew with the services
 * framework (its endpoints are required subscriptions: draining one ends the registration), the
 * new registration first, so that the instance never drops out of discovery.
 */
class NatsRegisteredService implements RegisteredService {
  private readonly transitions = new SerialTransitions();
  private stopping: Promise<void> | undefined;

  constructor(
    private service: Service,
    private paused: boolean,
    private readonly register: (paused: boolean) => Promise<Service>,
    private readonly inFlight: InFlight,
    private readonly drainTimeoutMs: number,
    private readonly logger: BusLogger,
    private readonly onStop: () => void,
  ) {}

  get id(): string {
    return this.service.info().id;
  }

  get info(): ServiceInfo {
    return toServiceInfo(this.service.info());
  }

  get state(): ServiceInstanceState {
    return this.paused ? 'paused' : 'running';
  }

  private async drained(): Promise<void> {
    if (!(await this.inFlight.idle(this.drainTimeoutMs))) {
      this.logger.warn(
        { service: this.service.info().name, inFlight: this.inFlight.size },
        'service instance drained with requests still unanswered',
      );
    }
  }

  pause(): Promise<void> {
    return this.transitions.run(async () => {
      if (this.paused || this.stopping !== undefined) return;
      const running = this.service;
      this.service = await this.register(true);
      this.paused = true;
      // drains the endpoint subscriptions: requests already received are handled
      await running.stop();
      await this.drained();
    });
  }

  resume(): Promise<void> {
    return this.transitions.run(async () => {
      if (!this.paused || this.stopping !== undefined) return;
      const paused = this.service;
      this.service = await this.register(false);
      this.paused = false;
      await paused.stop();
    });
  }

  /** Stops taking requests (drains the endpoints) and waits up to `drainTimeoutMs` for its requests in flight. */
  stop(): Promise<void> {
    this.stopping ??= this.transitions.run(async () => {
      this.onStop();
      await this.service.stop();
      await this.drained();
    });
    return this.stopping;
  }
}

/** Feeds one JetStream consumer's messages to a handler, one at a time, with ack/redelivery. */
class NatsEventWorker {
  private readonly abort = new AbortController();
  private stopping = false;
  private readonly done: Promise<void>;

  constructor(
    private readonly messages: ConsumerMessages,
    private readonly handler: (event: BusEvent) => Promise<void> | void,
    private readonly durable: boolean,
    private readonly settings: ResolvedConsumerSettings,
    private readonly logger: BusLogger,
    private readonly filter: string,
  ) {
    this.done = this.run();
  }

  private async run(): Promise<void> {
    try {
      for await (const m of this.messages) {
        if (this.stopping) {
          // handed back at once so another replica (or the next subscription) gets it
          if (this.durable) m.nak();
          continue;
        }
        if (this.durable) await this.handleDurable(m);
        else await this.handleOrdered(m);
      }
    } catch (err) {
      if (!this.stopping) this.logger.error({ err, filter: this.filter }, 'event consumer stopped');
    }
  }

  private async handleDurable(m: JsMsg): Promise<void> {
    m.working();
    try {
      await this.handler(toBusEvent(m));
    } catch (err) {
      const deliveries = m.info.deliveryCount;
      if (deliveries >= this.settings.maxDeliver) {
        this.logger.error({ err, subject: m.subject, seq: m.seq, deliveries }, 'event handler failed; giving the event up');
        m.term();
      } else {
        this.logger.warn({ err, subject: m.subject, seq: m.seq, deliveries }, 'event handler failed; the event will be redelivered');
        m.nak(this.settings.redeliveryDelayMs);
      }
      return;
    }
    try {
      await m.ackAck();
    } catch (err) {
      this.logger.warn({ err, subject: m.subject, seq: m.seq }, 'event ack failed; the event may be redelivered');
    }
  }

  private async handleOrdered(m: JsMsg): Promise<void> {
    const event = toBusEvent(m);
    for (let delivery = 1; ; delivery++) {
      try {
        await this.handler(delivery === 1 ? event : { ...event, data: copyBytes(event.data), headers: { ...event.headers } });
        return;
      } catch (err) {
        if (delivery >= this.settings.maxDeliver || this.stopping) {
          this.logger.error({ err, subject: m.subject, seq: m.seq, deliveries: delivery }, 'event handler failed; giving the event up');
          return;
        }
        this.logger.warn(
          { err, subject: m.subject, seq: m.seq, deliveries: delivery },
          'event handler failed; the event will be redelivered',
        );
        await sleep(this.settings.redeliveryDelayMs, this.abort.signal);
        if (this.stopping) return;
      }
    }
  }

  async stop(): Promise<void> {
    if (!this.stopping) {
      this.stopping = true;
      this.abort.abort();
      await this.messages.close().catch(() => undefined);
    }
    await this.done;
  }
}

function toBusEvent(m: JsMsg): BusEvent {
  return {
    subject: m.subject,
    data: m.data,
    headers: fromNatsHeaders(m.headers),
    seq: m.seq,
    timestamp: Number(m.timestampNanos / 1_000_000n),
  };
}
