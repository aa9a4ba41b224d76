import { AppError } from '@nap/contracts';
import type { WorkQueueName } from '@nap/contracts';
import type { QueuedEntry, Subscription, WorkQueueConsumerOptions } from '../types';
import type { BusLogger } from './logger';
import { Signal } from './signal';

const DEFAULT_MAX_BATCH = 256;

interface Waiting {
  entry: QueuedEntry;
  resolve(): void;
  reject(err: unknown): void;
}

interface Member {
  handler: (batch: QueuedEntry[]) => Promise<void>;
  maxBatch: number;
}

/**
 * A work queue of the in-process bus. Memory keeps nothing across a restart, so an append is
 * durable only once a consumer's handler has taken it: it waits for the handler of its batch and
 * fails with it. Appends that arrive while a handler runs form the next batch (group commit).
 */
export class MemoryQueue {
  private readonly waiting: Waiting[] = [];
  private readonly members: Member[] = [];
  private readonly arrived = new Signal();
  private next = 0;
  private running: Promise<void> | undefined;

  constructor(
    private readonly name: WorkQueueName,
    private readonly logger: BusLogger,
  ) {}

  append(id: string, data: Uint8Array): Promise<void> {
    if (this.members.length === 0) {
      return Promise.reject(
        new AppError('SERVICE_UNAVAILABLE', `Nothing consumes the ${this.name} queue in this process, so the entry cannot be kept`),
      );
    }
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ entry: { id, data: data.slice() }, resolve, reject });
      this.arrived.notify();
    });
  }

  consume(handler: (batch: QueuedEntry[]) => Promise<void>, options: WorkQueueConsumerOptions): Subscription {
    const member: Member = { handler, maxBatch: options.maxBatch ?? DEFAULT_MAX_BATCH };
    this.members.push(member);
    this.running ??= this.run();
    return {
      unsubscribe: async () => {
        const at = this.members.indexOf(member);
        if (at >= 0) this.members.splice(at, 1);
        this.arrived.notify();
        if (this.members.length === 0) {
          await this.running;
          this.running = undefined;
        }
      },
    };
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
      try {
        await member.handler(batch.map((w) => w.entry));
        for (const w of batch) w.resolve();
      } catch (err) {
        this.logger.warn({ err, queue: this.name, entries: batch.length }, 'a work queue batch failed; its appends fail');
        const failure = new AppError('SERVICE_UNAVAILABLE', `The ${this.name} queue's consumer could not keep the entry`, { cause: err });
        for (const w of batch) w.reject(failure);
      }
    }
    const failure = new AppError('SERVICE_UNAVAILABLE', `The ${this.name} queue's consumer stopped`);
    for (const w of this.waiting.splice(0)) w.reject(failure);
  }
}
