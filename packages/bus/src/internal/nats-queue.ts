import { AppError, queueSubject } from '@nap/contracts';
import type { WorkQueueName } from '@nap/contracts';
import { errorMessage, sleep } from '@nap/util';
import { headers as natsHeaders, nanos } from '@nats-io/nats-core';
import type { NatsConnection } from '@nats-io/nats-core';
import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  RetentionPolicy,
  StorageType,
  jetstream,
} from '@nats-io/jetstream';
import type { ConsumerMessages, JetStreamClient, JsMsg, StreamConfig } from '@nats-io/jetstream';
import type { QueueBacklog, QueuedEntry, Subscription, WorkQueueConsumerOptions } from '../types';
import { ConsumerSet } from './consumer-set';
import { closedError } from './errors';
import { copyBytes } from './headers';
import type { BusLogger } from './logger';
import { isNoResponders, requestFailure } from './nats-convert';
import type { ReplyInbox } from './nats-reply-inbox';
import { publishToStream } from './nats-stream-publish';
import type { NatsEventStream } from './nats-stream';
import { QUEUE_BATCH_HEADER, decodeQueueBatch, encodeQueueBatch } from './queue-batch';
import { Signal } from './signal';

/** Settings of the work queues' streams. */
export interface NatsQueueOptions {
  /** Bytes a queue's stream keeps at most; beyond, appends are refused (nothing is dropped). Defaults to 1 GiB. */
  maxBytes?: number;
  /** Stream replicas in a NATS cluster. Defaults to 1. */
  replicas?: number;
}

const DEFAULT_MAX_BYTES = 1024 * 1024 * 1024;
const DEFAULT_MAX_BATCH = 256;
/** A repeat of an entry id within this window is dropped by JetStream. */
const DUPLICATE_WINDOW_MS = 120_000;
/**
 * A batch not acknowledged within this time is delivered again: what a consumer that died was
 * holding comes back after it. The handler's batch is told it is still being worked on meanwhile.
 */
const ACK_WAIT_MS = 10_000;
/** Wait before a batch whose handler threw is handed out again. */
const RETRY_DELAY_MS = 1_000;
/** Most entries and bytes of one message of appends that came together (NATS refuses messages over 1 MiB by default). */
const MESSAGE_ENTRIES = 256;
const MESSAGE_BYTES = 512 * 1024;

/** Appends of one turn of the event loop, published as one message. */
interface Outgoing {
  entries: QueuedEntry[];
  bytes: number;
  waiters: { resolve(): void; reject(err: unknown): void }[];
}

/** The JetStream stream of work queue `queue`: `NAP_QUEUE_AUDIT` for `audit`. */
export function queueStreamName(queue: WorkQueueName): string {
  return `NAP_QUEUE_${queue.toUpperCase()}`;
}

/**
 * The platform's work queues over JetStream: one stream per queue with work-queue retention (an
 * entry leaves once a consumer acknowledged it), file storage, and `discard: new`, so that a full
 * queue refuses an append (the appender knows) instead of silently dropping entries already
 * acknowledged. Streams are created at first use. The appends of one turn of the event loop go as
 * one message (see `queue-batch.ts`): under load a gateway's audit records cost JetStream one
 * store, one acknowledgement, one delivery and one consumer ack together instead of each.
 */
export class NatsQueues {
  private readonly js: JetStreamClient;
  private readonly ensured = new Map<WorkQueueName, Promise<void>>();
  private readonly consumers = new ConsumerSet();
  private readonly outgoing = new Map<WorkQueueName, Outgoing>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly streams: NatsEventStream,
    private readonly options: NatsQueueOptions,
    private readonly logger: BusLogger,
    private readonly isClosing: () => boolean,
    /** The connection's reply inbox: where JetStream acknowledges appends. */
    private readonly replies: ReplyInbox,
  ) {
    this.js = jetstream(nc);
  }

  /** Forgets which streams exist (a server that came back without its store needs them again). */
  reset(): void {
    this.ensured.clear();
  }

  append(queue: WorkQueueName, id: string, data: Uint8Array): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let out = this.outgoing.get(queue);
      if (out === undefined || out.entries.length >= MESSAGE_ENTRIES || out.bytes + data.byteLength > MESSAGE_BYTES) {
        const fresh: Outgoing = { entries: [], bytes: 0, waiters: [] };
        this.outgoing.set(queue, fresh);
        // on the next turn, with whatever else is appended meanwhile
        setImmediate(() => void this.send(queue, fresh));
        out = fresh;
      }
      out.entries.push({ id, data: copyBytes(data) });
      out.bytes += data.byteLength;
      out.waiters.push({ resolve, reject });
    });
  }

  private async send(queue: WorkQueueName, out: Outgoing): Promise<void> {
    if (this.outgoing.get(queue) === out) this.outgoing.delete(queue);
    try {
      await this.publish(queue, out.entries);
    } catch (err) {
      for (const w of out.waiters) w.reject(err);
      return;
    }
    for (const w of out.waiters) w.resolve();
  }

  /** Publishes entries as one message: one alone with its id as `Nats-Msg-Id` (JetStream drops a repeat), several framed together. */
  private async publish(queue: WorkQueueName, entries: QueuedEntry[]): Promise<void> {
    const subject = queueSubject(queue);
    const [only] = entries;
    const message =
      entries.length === 1 && only !== undefined
        ? { data: only.data, options: { msgId: only.id } }
        : { data: encodeQueueBatch(entries), options: { headers: batchHeaders(entries.length) } };
    await this.ensure(queue);
    for (let attempt = 1; ; attempt++) {
      try {
        await publishToStream(this.replies, subject, message.data, message.options);
        return;
      } catch (err) {
        if (isNoResponders(err) && attempt === 1) {
          // the stream went away (a server restarted without its store): make it again, once
          this.ensured.delete(queue);
          await this.ensure(queue);
          continue;
        }
        const failure = requestFailure(err, subject, 0);
        throw failure.code === 'SERVICE_UNAVAILABLE' || failure.code === 'TIMEOUT'
          ? failure
          : new AppError('SERVICE_UNAVAILABLE', `The work queue ${queueStreamName(queue)} did not take the entry: ${errorMessage(err)}`, {
              cause: err,
            });
      }
    }
  }

  async consume(
    queue: WorkQueueName,
    handler: (batch: QueuedEntry[]) => Promise<void>,
    options: WorkQueueConsumerOptions,
  ): Promise<Subscription> {
    if (this.isClosing()) throw closedError(`consume the work queue ${queue}`);
    await this.ensure(queue);
    const stream = queueStreamName(queue);
    const jsm = await this.streams.manager();
    const maxBatch = options.maxBatch ?? DEFAULT_MAX_BATCH;
    try {
      await jsm.consumers.info(stream, options.durableName);
    } catch (err) {
      if (!(err instanceof JetStreamApiError && err.code === JetStreamApiCodes.ConsumerNotFound)) throw err;
      await jsm.consumers
        .add(stream, {
          durable_name: options.durableName,
          ack_policy: AckPolicy.Explicit,
          deliver_policy: DeliverPolicy.All,
          ack_wait: nanos(ACK_WAIT_MS),
          max_ack_pending: maxBatch * 8,
        })
        .catch(async (addErr: unknown) => {
          // another replica made it meanwhile
          await jsm.consumers.info(stream, options.durableName).catch(() => {
            throw addErr;
          });
        });
    }
    const consumer = await this.js.consumers.get(stream, options.durableName);
    const messages = await consumer.consume({ max_messages: maxBatch * 2 });
    const worker = new BatchWorker(messages, handler, maxBatch, this.logger, stream);
    return this.consumers.add(() => worker.stop());
  }

  /**
   * The queue's stream as it stands: its first message is the oldest entry no consumer acknowledged
   * (work-queue retention), and its bytes over its limit say how near appends are to being refused.
   * Empty before the stream exists.
   */
  async backlog(queue: WorkQueueName): Promise<QueueBacklog> {
    const jsm = await this.streams.manager();
    let info;
    try {
      info = await jsm.streams.info(queueStreamName(queue));
    } catch (err) {
      if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound) return {};
      throw err;
    }
    const { state, config } = info;
    const fill = config.max_bytes > 0 ? state.bytes / config.max_bytes : undefined;
    return {
      ...(state.messages > 0 ? { oldestAt: Date.parse(state.first_ts) } : {}),
      ...(fill === undefined ? {} : { fill }),
    };
  }

  stopAll(): Promise<void> {
    return this.consumers.stopAll();
  }

  private ensure(queue: WorkQueueName): Promise<void> {
    let pending = this.ensured.get(queue);
    if (pending === undefined) {
      pending = this.create(queue).catch((err: unknown) => {
        this.ensured.delete(queue);
        throw err;
      });
      this.ensured.set(queue, pending);
    }
    return pending;
  }

  private async create(queue: WorkQueueName): Promise<void> {
    const name = queueStreamName(queue);
    const wanted: Partial<StreamConfig> & { name: string } = {
      name,
      subjects: [queueSubject(queue)],
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      discard: DiscardPolicy.New,
      max_bytes: this.options.maxBytes ?? DEFAULT_MAX_BYTES,
      duplicate_window: nanos(DUPLICATE_WINDOW_MS),
      num_replicas: this.options.replicas ?? 1,
    };
    try {
      const jsm = await this.streams.manager();
      try {
        await jsm.streams.info(name);
      } catch (err) {
        if (!(err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound)) throw err;
        await jsm.streams.add(wanted).catch(async (addErr: unknown) => {
          // replicas starting together race to create it
          await jsm.streams.info(name).catch(() => {
            throw addErr;
          });
        });
      }
    } catch (err) {
      throw new AppError('SERVICE_UNAVAILABLE', `Cannot ensure the JetStream stream ${name} of the ${queue} queue: ${errorMessage(err)}`, {
        cause: err,
      });
    }
  }
}

/**
 * Hands a consumer's messages to the handler in batches of at most `maxBatch` entries (a message may
 * carry several): the messages that arrived while the handler ran form the next batch (group
 * commit). A batch is acknowledged once the handler resolved, and handed back (nak with a delay)
 * when it threw.
 */
class BatchWorker {
  private readonly pending: JsMsg[] = [];
  private readonly arrived = new Signal();
  private stopping = false;
  private readonly reading: Promise<void>;
  private readonly working: Promise<void>;

  constructor(
    private readonly messages: ConsumerMessages,
    private readonly handler: (batch: QueuedEntry[]) => Promise<void>,
    private readonly maxBatch: number,
    private readonly logger: BusLogger,
    private readonly stream: string,
  ) {
    this.reading = this.read();
    this.working = this.work();
  }

  private async read(): Promise<void> {
    try {
      for await (const m of this.messages) {
        if (this.stopping) {
          m.nak();
          continue;
        }
        this.pending.push(m);
        this.arrived.notify();
      }
    } catch (err) {
      if (!this.stopping) this.logger.error({ err, stream: this.stream }, 'work queue consumer stopped');
    } finally {
      this.stopping = true;
      this.arrived.notify();
    }
  }

  private async work(): Promise<void> {
    while (!this.stopping || this.pending.length > 0) {
      if (this.pending.length === 0) {
        await this.arrived.wait();
        continue;
      }
      if (this.stopping) {
        for (const m of this.pending.splice(0)) m.nak();
        return;
      }
      const batch = this.take();
      const entries = this.entriesOf(batch);
      if (entries === undefined) continue;
      // a slow store must not make JetStream hand the batch to another replica while this one works on it
      const working = setInterval(() => {
        for (const m of batch) m.working();
      }, ACK_WAIT_MS / 3);
      try {
        await this.handler(entries);
        for (const m of batch) m.ack();
      } catch (err) {
        this.logger.warn({ err, stream: this.stream, entries: entries.length }, 'a work queue batch failed; it is delivered again');
        for (const m of batch) m.nak(RETRY_DELAY_MS);
        await sleep(RETRY_DELAY_MS);
      } finally {
        clearInterval(working);
      }
    }
  }

  /** The messages of the next batch: as many as hold `maxBatch` entries, at least one. */
  private take(): JsMsg[] {
    let entries = 0;
    let count = 0;
    for (const m of this.pending) {
      const n = entriesIn(m);
      if (count > 0 && entries + n > this.maxBatch) break;
      entries += n;
      count += 1;
    }
    return this.pending.splice(0, count);
  }

  /** The entries of messages; undefined when one is not a batch the bus made (it is terminated: it would fail every time). */
  private entriesOf(batch: JsMsg[]): QueuedEntry[] | undefined {
    const entries: QueuedEntry[] = [];
    for (const m of batch) {
      const count = m.headers?.get(QUEUE_BATCH_HEADER);
      if (count === undefined || count === '') {
        entries.push({ id: m.headers?.get('Nats-Msg-Id') ?? `${this.stream}.${m.seq}`, data: copyBytes(m.data) });
        continue;
      }
      try {
        entries.push(...decodeQueueBatch(m.data, Number(count)));
      } catch (err) {
        this.logger.error({ err, stream: this.stream, seq: m.seq }, 'a work queue message is no batch of entries; it is dropped');
        m.term();
        // the others wait for the next batch, in their order
        this.pending.unshift(...batch.filter((other) => other !== m));
        return undefined;
      }
    }
    return entries;
  }

  async stop(): Promise<void> {
    if (!this.stopping) {
      this.stopping = true;
      this.arrived.notify();
      await this.messages.close().catch(() => undefined);
    }
    await Promise.all([this.reading, this.working]);
  }
}

function batchHeaders(count: number) {
  const h = natsHeaders();
  h.set(QUEUE_BATCH_HEADER, String(count));
  return h;
}

/** How many entries a message carries. */
function entriesIn(m: JsMsg): number {
  const count = Number(m.headers?.get(QUEUE_BATCH_HEADER) || 1);
  return Number.isSafeInteger(count) && count > 0 ? count : 1;
}
