import { AppError } from '@nap/contracts';
import type { WorkQueueName } from '@nap/contracts';
import { errorMessage, sleep } from '@nap/util';
import type { QueueJournal, QueuedEntry, Subscription, WorkQueueConsumerOptions } from '../types';
import { copyBytes } from './headers';
import type { BusLogger } from './logger';
import { Signal } from './signal';

const DEFAULT_MAX_BATCH = 256;
/** Wait before a batch whose handler threw is handed out again (journaled queues; as on NATS). */
const RETRY_DELAY_MS = 1_000;

interface Waiting {
  entry: QueuedEntry;
  /** Epoch ms the queue took it in (appended, or found in the journal at a restart). */
  at: number;
  /** Journaled queues: the entry's key in the journal, and its place in the order entries were taken in. */
  key?: string;
  ordinal: number;
  /** Unjournaled queues: the append waiting for the handler. */
  resolve?(): void;
  reject?(err: unknown): void;
}

interface Member {
  handler: (batch: QueuedEntry[]) => Promise<void>;
  maxBatch: number;
}

/**
 * A work queue of the in-process bus, its consumers taking a batch at a time in turn, one batch at a
 * time whatever their number (so that a consumer that appends to a chain never races another).
 *
 * With a {@link QueueJournal}, an append is durable once the journal kept it, and resolves then: the
 * handler takes it after, with what else arrived (its cost is no longer in the appender's answer); a
 * batch whose handler threw is handed out again after a delay, and an entry leaves the journal once
 * handled. What a crash left in the journal is taken in at the first consumer.
 *
 * Without a journal memory keeps nothing across a restart, so an append is durable only once a
 * consumer's handler has taken it: it waits for the handler of its batch and fails with it. Appends
 * that arrive while a handler runs form the next batch (group commit).
 */
export class MemoryQueue {
  private readonly waiting: Waiting[] = [];
  private readonly members: Member[] = [];
  private readonly arrived = new Signal();
  private next = 0;
  private running: Promise<void> | undefined;
  /** Aborted when the last consumer leaves: cuts the wait before a failed batch is retried. */
  private stopped = new AbortController();
  /** Journaled queues: ordinal of the last entry taken in, and of the last one handled. */
  private taken = 0;
  private handledThrough = 0;
  private handledWaiters: { ordinal: number; resolve(): void }[] = [];
  private loaded: Promise<void> | undefined;
  /** When the oldest entry of the batch a handler holds was taken in. */
  private handing: number | undefined;
  private releasing: Promise<void> = Promise.resolve();

  constructor(
    private readonly name: WorkQueueName,
    private readonly logger: BusLogger,
    private readonly journal?: QueueJournal,
  ) {}

  async append(id: string, data: Uint8Array): Promise<void> {
    if (this.members.length === 0) {
      throw new AppError('SERVICE_UNAVAILABLE', `Nothing consumes the ${this.name} queue in this process, so the entry cannot be kept`);
    }
    const entry: QueuedEntry = { id, data: copyBytes(data) };
    if (this.journal === undefined) {
      return new Promise<void>((resolve, reject) => {
        this.waiting.push({ entry, at: Date.now(), ordinal: 0, resolve, reject });
        this.arrived.notify();
      });
    }
    let key: string;
    try {
      key = await this.journal.keep(this.name, entry);
    } catch (err) {
      throw new AppError('SERVICE_UNAVAILABLE', `The journal of the ${this.name} queue could not keep the entry: ${errorMessage(err)}`, {
        cause: err,
      });
    }
    this.take(entry, key);
  }

  /**
   * Takes in, once, what the journal kept and no consumer handled before (a crash): they come first,
   * before anything appended after. Call before the first consumer joins.
   */
  load(): Promise<void> {
    const journal = this.journal;
    if (journal === undefined) return Promise.resolve();
    this.loaded ??= journal.kept(this.name).then(
      (entries) => {
        if (entries.length > 0)
          this.logger.info({ queue: this.name, entries: entries.length }, 'work queue entries kept before a restart are delivered again');
        for (const { key, ...entry } of entries) this.take(entry, key);
      },
      (err: unknown) => {
        this.loaded = undefined;
        throw new AppError('SERVICE_UNAVAILABLE', `The journal of the ${this.name} queue could not be read: ${errorMessage(err)}`, {
          cause: err,
        });
      },
    );
    return this.loaded;
  }

  /** See {@link Bus.queueHandled}. */
  async handled(timeoutMs: number): Promise<void> {
    const ordinal = this.taken;
    if (this.journal === undefined || this.handledThrough >= ordinal) return;
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      const waiter = { ordinal, resolve };
      this.handledWaiters.push(waiter);
      timer = setTimeout(() => {
        this.handledWaiters = this.handledWaiters.filter((w) => w !== waiter);
        resolve();
      }, timeoutMs);
    });
    clearTimeout(timer);
  }

  /** Epoch ms the oldest entry not yet handled was taken in (the batch a handler holds first); undefined when none waits. */
  oldestAt(): number | undefined {
    return this.handing ?? this.waiting[0]?.at;
  }

  consume(handler: (batch: QueuedEntry[]) => Promise<void>, options: WorkQueueConsumerOptions): Subscription {
    const member: Member = { handler, maxBatch: options.maxBatch ?? DEFAULT_MAX_BATCH };
    this.members.push(member);
    if (this.running === undefined) {
      this.stopped = new AbortController();
      this.running = this.run();
    }
    return {
      unsubscribe: async () => {
        const at = this.members.indexOf(member);
        if (at >= 0) this.members.splice(at, 1);
        this.arrived.notify();
        if (this.members.length === 0) {
          this.stopped.abort();
          await this.running;
          this.running = undefined;
          await this.releasing;
        }
      },
    };
  }

  private take(entry: QueuedEntry, key: string): void {
    this.waiting.push({ entry, at: Date.now(), key, ordinal: ++this.taken });
    this.arrived.notify();
  }

  private async run(): Promise<void> {
    while (this.members.length > 0) {
      if (this.waiting.length === 0) {
        await this.arrived.wait();
        continue;
      }
      // the members share the queue, a batch each in turn
      const member = this.members[this.next++ % this.members.length] as Member;
      const batch = this.waiting.splice(0, member.maxBatch);
      this.handing = batch[0]?.at;
      try {
        await member.handler(batch.map((w) => w.entry));
      } catch (err) {
        this.handing = undefined;
        if (this.journal === undefined) {
          this.logger.warn({ err, queue: this.name, entries: batch.length }, 'a work queue batch failed; its appends fail');
          const failure = new AppError('SERVICE_UNAVAILABLE', `The ${this.name} queue's consumer could not keep the entry`, { cause: err });
          for (const w of batch) w.reject?.(failure);
        } else {
          this.logger.warn({ err, queue: this.name, entries: batch.length }, 'a work queue batch failed; it is delivered again');
          this.waiting.unshift(...batch);
          await sleep(RETRY_DELAY_MS, this.stopped.signal);
        }
        continue;
      }
      this.handing = undefined;
      if (this.journal === undefined) for (const w of batch) w.resolve?.();
      else this.done(this.journal, batch);
    }
    if (this.journal === undefined) {
      const failure = new AppError('SERVICE_UNAVAILABLE', `The ${this.name} queue's consumer stopped`);
      for (const w of this.waiting.splice(0)) w.reject?.(failure);
    }
    // a journaled queue keeps what is waiting: for a later consumer, and in the journal for the next start
  }

  private done(journal: QueueJournal, batch: Waiting[]): void {
    this.handledThrough = (batch[batch.length - 1] as Waiting).ordinal;
    const waiters = this.handledWaiters;
    this.handledWaiters = [];
    for (const w of waiters) {
      if (w.ordinal <= this.handledThrough) w.resolve();
      else this.handledWaiters.push(w);
    }
    const keys = batch.map((w) => w.key as string);
    // one release at a time, in order; the consumer does not wait for it
    this.releasing = this.releasing.then(() =>
      journal
        .release(keys)
        .catch((err: unknown) =>
          this.logger.warn(
            { err, queue: this.name, entries: keys.length },
            'handled work queue entries could not leave the journal; they are delivered again at the next start, and kept once by their ids',
          ),
        ),
    );
  }
}
