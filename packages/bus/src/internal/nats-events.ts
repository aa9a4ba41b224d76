import { AppError } from '@nap/contracts';
import { errorMessage } from '@nap/util';
import { nanos } from '@nats-io/nats-core';
import type { NatsConnection } from '@nats-io/nats-core';
import { AckPolicy, DeliverPolicy, JetStreamApiCodes, JetStreamApiError, jetstream } from '@nats-io/jetstream';
import type { Consumer, ConsumerConfig, ConsumerInfo, JetStreamClient, JetStreamManager, OrderedConsumerOptions } from '@nats-io/jetstream';
import { EVENT_STREAM } from '../types';
import type { BusEvent, BusHeaders, EventBounds, EventConsumerOptions, Subscription } from '../types';
import { ConsumerSet } from './consumer-set';
import { closedError } from './errors';
import { assertEventFilter, assertEventSubject, checkConsumerOptions } from './events';
import type { CheckedDelivery, ResolvedConsumerSettings } from './events';
import { copyBytes } from './headers';
import type { BusLogger } from './logger';
import { isNoResponders, requestFailure, toNatsHeaders } from './nats-convert';
import type { ReplyInbox } from './nats-reply-inbox';
import { publishToStream } from './nats-stream-publish';
import { NatsEventWorker } from './nats-event-worker';
import type { NatsEventStream } from './nats-stream';

/**
 * Messages a durable consumer pulls at a time. One, so replicas share the stream evenly and an
 * event never waits in one replica's buffer (its ack clock running) while another replica idles.
 */
const DURABLE_PULL_BATCH = 1;
const ORDERED_PULL_BATCH = 100;

/**
 * Durable events over JetStream: publishing into the stream `NAP_EVENTS` (a `Nats-Msg-Id` header
 * passes through, so JetStream drops a repeat), ordered consumers for one reader, and durable pull
 * consumers that replicas share and that remember their position.
 */
export class NatsEvents {
  private readonly js: JetStreamClient;
  private readonly consumers = new ConsumerSet();

  constructor(
    private readonly nc: NatsConnection,
    private readonly stream: NatsEventStream,
    private readonly settings: ResolvedConsumerSettings,
    private readonly logger: BusLogger,
    private readonly isClosing: () => boolean,
    /** The connection's reply inbox: where JetStream acknowledges publishes. */
    private readonly replies: ReplyInbox,
  ) {
    this.js = jetstream(nc);
  }

  async publish(subject: string, data: Uint8Array, headers?: BusHeaders): Promise<{ seq: number }> {
    assertEventSubject(subject);
    const h = toNatsHeaders(headers);
    try {
      const ack = await publishToStream(this.replies, subject, copyBytes(data), h === undefined ? {} : { headers: h });
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

  async consume(filter: string, handler: (event: BusEvent) => Promise<void> | void, options: EventConsumerOptions): Promise<Subscription> {
    assertEventFilter(filter);
    const asked = checkConsumerOptions(options);
    if (this.isClosing()) throw closedError(`consume events on "${filter}"`);
    const durable = options.durableName;
    let consumer: Consumer;
    try {
      const delivery = await this.inThisLife(asked);
      consumer =
        durable === undefined ? await this.orderedConsumer(filter, delivery) : await this.durableConsumer(durable, filter, delivery);
    } catch (err) {
      if (err instanceof AppError) throw err;
      throw new AppError('SERVICE_UNAVAILABLE', `Cannot create a consumer of ${EVENT_STREAM} for "${filter}": ${errorMessage(err)}`, {
        cause: err,
      });
    }
    const messages = await consumer.consume({ max_messages: durable === undefined ? ORDERED_PULL_BATCH : DURABLE_PULL_BATCH });
    const worker = new NatsEventWorker(messages, handler, durable !== undefined, this.settings, this.logger, filter);
    let stopping: Promise<void> | undefined;
    return this.consumers.add(
      () =>
        (stopping ??= (async () => {
          await worker.stop();
          // an ordered consumer is of no use to anyone else; the server would drop it after 5 minutes
          if (durable === undefined && !this.nc.isClosed()) await consumer.delete().catch(() => undefined);
        })()),
    );
  }

  /** See `Bus.eventBounds`: the last matching event first, so that it is never past the stream's last. */
  async bounds(filter: string): Promise<EventBounds> {
    assertEventFilter(filter);
    if (this.isClosing()) throw closedError(`read the bounds of the event stream for "${filter}"`);
    try {
      const jsm = await this.stream.manager();
      const last = await jsm.streams.getMessage(EVENT_STREAM, { last_by_subj: filter });
      const { state } = await jsm.streams.info(EVENT_STREAM);
      // a stream that holds nothing answers 0 as its first sequence (or the next one, once purged)
      return {
        firstSeq: state.messages === 0 ? state.last_seq + 1 : state.first_seq,
        lastSeq: state.last_seq,
        lastMatchingSeq: last?.seq ?? 0,
      };
    } catch (err) {
      throw new AppError('SERVICE_UNAVAILABLE', `Cannot read the bounds of ${EVENT_STREAM} for "${filter}": ${errorMessage(err)}`, {
        cause: err,
      });
    }
  }

  /** Stops every consumer: the event in hand is finished (and acked), the rest are left to others. */
  stopAll(): Promise<void> {
    return this.consumers.stopAll();
  }

  /**
   * A start past the stream's end is a position in an earlier life of the stream (created again
   * since): the consumer starts at the stream's first event instead of waiting for the sequence to
   * come round (see `EventDelivery`).
   */
  private async inThisLife(delivery: CheckedDelivery): Promise<CheckedDelivery> {
    if (delivery.kind !== 'startSeq' || delivery.seq === 1) return delivery;
    const info = await (await this.stream.manager()).streams.info(EVENT_STREAM);
    return delivery.seq > info.state.last_seq + 1 ? { kind: 'all' } : delivery;
  }

  private async orderedConsumer(filter: string, delivery: CheckedDelivery): Promise<Consumer> {
    const opts: Partial<OrderedConsumerOptions> = { filter_subjects: filter, ...startPolicy(delivery) };
    return this.js.consumers.get(EVENT_STREAM, opts);
  }

  private async durableConsumer(name: string, filter: string, delivery: CheckedDelivery): Promise<Consumer> {
    const jsm = await this.stream.manager();
    let info: ConsumerInfo | undefined = await this.consumerInfo(jsm, name);
    if (info === undefined) {
      const config: Partial<ConsumerConfig> = {
        durable_name: name,
        ack_policy: AckPolicy.Explicit,
        filter_subject: filter,
        max_deliver: this.settings.maxDeliver,
        ack_wait: nanos(this.settings.ackWaitMs),
        ...startPolicy(delivery),
      };
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
}

/** Where a new consumer starts, in JetStream's terms. */
function startPolicy(delivery: CheckedDelivery): Pick<ConsumerConfig, 'deliver_policy' | 'opt_start_seq' | 'opt_start_time'> {
  switch (delivery.kind) {
    case 'all':
      return { deliver_policy: DeliverPolicy.All };
    case 'new':
      return { deliver_policy: DeliverPolicy.New };
    case 'startSeq':
      return { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: delivery.seq };
    case 'startTime':
      return { deliver_policy: DeliverPolicy.StartTime, opt_start_time: new Date(delivery.timeMs).toISOString() };
  }
}
