import { AppError } from '@nap/contracts';
import { sleep } from '@nap/util';
import type { BusEvent } from '../types';
import type { EventLog, StoredEvent } from './event-log';
import type { CheckedDelivery, ResolvedConsumerSettings } from './events';
import { copyBytes } from './headers';
import type { BusLogger } from './logger';
import { Signal, isPromiseLike } from './signal';

type EventHandler = (event: BusEvent) => Promise<void> | void;

/** A fresh copy of a stored event for one delivery, so a handler cannot change the log. */
function toBusEvent(event: StoredEvent): BusEvent {
  return { subject: event.subject, data: copyBytes(event.data), headers: { ...event.headers }, seq: event.seq, timestamp: event.timestamp };
}

/** First sequence a new consumer looks at. */
export function startSequence(log: EventLog, delivery: CheckedDelivery): number {
  switch (delivery.kind) {
    case 'all':
      return 1;
    case 'new':
      return log.lastSequence + 1;
    case 'startSeq':
      // past the stream's end: a position in an earlier life of the stream, whose events this
      // one does not hold; what it holds is all new to the consumer
      return delivery.seq > log.lastSequence + 1 ? 1 : delivery.seq;
    case 'startTime':
      return log.firstSeqAtOrAfter(delivery.timeMs);
  }
}

/** Something `close()` can stop. */
export interface EventWorker {
  stop(): Promise<void>;
}

/**
 * The in-memory ordered consumer: every matching event in sequence order, one at a time; a handler
 * that throws gets the same event again after `redeliveryDelayMs`, up to `maxDeliver` deliveries,
 * before the consumer moves on. Nothing is remembered after it stops.
 */
export class OrderedWorker implements EventWorker {
  private readonly wake = new Signal();
  private readonly abort = new AbortController();
  private readonly unlisten: () => void;
  private readonly done: Promise<void>;

  constructor(
    private readonly log: EventLog,
    private readonly filter: string,
    private cursor: number,
    private readonly handler: EventHandler,
    private readonly settings: ResolvedConsumerSettings,
    private readonly logger: BusLogger,
  ) {
    this.unlisten = log.onAppend(() => this.wake.notify(), filter);
    this.done = this.run();
  }

  private async run(): Promise<void> {
    while (!this.abort.signal.aborted) {
      const { event, nextSeq } = this.log.next(this.cursor, this.filter);
      this.cursor = nextSeq;
      if (event === undefined) {
        await this.wake.wait();
        continue;
      }
      for (let delivery = 1; ; delivery++) {
        try {
          // a handler that answers at once is not awaited: a promise and a turn less per event
          const handled = this.handler(toBusEvent(event));
          if (isPromiseLike(handled)) await handled;
          break;
        } catch (err) {
          if (delivery >= this.settings.maxDeliver || this.abort.signal.aborted) {
            this.logger.error(
              { err, subject: event.subject, seq: event.seq, deliveries: delivery },
              'event handler failed; giving the event up',
            );
            break;
          }
          this.logger.warn(
            { err, subject: event.subject, seq: event.seq, deliveries: delivery },
            'event handler failed; the event will be redelivered',
          );
          await sleep(this.settings.redeliveryDelayMs, this.abort.signal);
          if (this.abort.signal.aborted) break;
        }
      }
    }
  }

  async stop(): Promise<void> {
    if (!this.abort.signal.aborted) {
      this.abort.abort();
      this.unlisten();
      this.wake.notify();
    }
    await this.done;
  }
}

/**
 * A named consumer kept by the broker: its position survives the subscriptions that use it, and
 * the subscriptions sharing it (replicas) get each event once between them. Events whose handler
 * threw come back after `redeliveryDelayMs`, up to `maxDeliver` deliveries.
 */
export class DurableState {
  /** Next sequence not yet handed out. */
  private cursor: number;
  /** Sequences due for redelivery, ascending. */
  private ready: number[] = [];
  /**
   * Deliveries so far of each event that failed and waits for, or was handed out for, a redelivery
   * and is not yet acked or given up. An event handed out the first time is not entered (its
   * delivery count goes with it): a map that took and dropped an entry per event made a new table
   * in the old generation each time (~6 MB promoted per 25,000 transitions).
   */
  private readonly deliveries = new Map<number, number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly members = new Set<DurableMember>();
  private unlisten: (() => void) | undefined;
  readonly changed = new Signal();

  constructor(
    readonly name: string,
    readonly filter: string,
    start: number,
    private readonly log: EventLog,
    readonly settings: ResolvedConsumerSettings,
    private readonly logger: BusLogger,
  ) {
    this.cursor = start;
  }

  /** Refuses to reuse the name for another filter, as JetStream refuses to. */
  assertFilter(filter: string): void {
    if (filter !== this.filter) {
      throw new AppError('CONFLICT', `Durable consumer "${this.name}" exists with filter "${this.filter}"; it cannot consume "${filter}"`);
    }
  }

  /** Adds a subscription (replica) handling events with `handler`. */
  join(handler: EventHandler): DurableMember {
    const member = new DurableMember(this, handler, this.logger);
    this.members.add(member);
    this.unlisten ??= this.log.onAppend(() => this.changed.notify(), this.filter);
    member.start();
    return member;
  }

  leave(member: DurableMember): void {
    this.members.delete(member);
    if (this.members.size === 0 && this.unlisten !== undefined) {
      this.unlisten();
      this.unlisten = undefined;
    }
  }

  /** The next event for an idle member: a due redelivery first, then the next new one. */
  take(): { event: StoredEvent; delivery: number } | undefined {
    while (this.ready.length > 0) {
      const seq = this.ready.shift() as number;
      const event = this.log.get(seq);
      const previous = this.deliveries.get(seq) ?? 0;
      if (event === undefined) {
        // expired or pushed out by the limits while waiting
        this.deliveries.delete(seq);
        continue;
      }
      this.deliveries.set(seq, previous + 1);
      return { event, delivery: previous + 1 };
    }
    const { event, nextSeq } = this.log.next(this.cursor, this.filter);
    this.cursor = nextSeq;
    if (event === undefined) return undefined;
    return { event, delivery: 1 };
  }

  ack(seq: number): void {
    if (this.deliveries.size > 0) this.deliveries.delete(seq);
  }

  /** A handler threw: schedule the redelivery, or give the event up after `maxDeliver`. */
  fail(event: StoredEvent, delivery: number, err: unknown): void {
    if (delivery >= this.settings.maxDeliver) {
      this.logger.error({ err, subject: event.subject, seq: event.seq, deliveries: delivery }, 'event handler failed; giving the event up');
      this.deliveries.delete(event.seq);
      return;
    }
    this.logger.warn(
      { err, subject: event.subject, seq: event.seq, deliveries: delivery },
      'event handler failed; the event will be redelivered',
    );
    this.deliveries.set(event.seq, delivery);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.ready.push(event.seq);
      this.ready.sort((a, b) => a - b);
      this.changed.notify();
    }, this.settings.redeliveryDelayMs);
    timer.unref();
    this.timers.add(timer);
  }
}

/** One subscription on a durable consumer: takes an event whenever it is idle. */
export class DurableMember implements EventWorker {
  private stopping = false;
  private done: Promise<void> = Promise.resolve();

  constructor(
    private readonly state: DurableState,
    private readonly handler: EventHandler,
    private readonly logger: BusLogger,
  ) {}

  start(): void {
    this.done = this.run();
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      const next = this.state.take();
      if (next === undefined) {
        await this.state.changed.wait();
        continue;
      }
      try {
        // a handler that answers at once (the event triggers' while none listens) is not awaited
        const handled = this.handler(toBusEvent(next.event));
        if (isPromiseLike(handled)) await handled;
        this.state.ack(next.event.seq);
      } catch (err) {
        this.state.fail(next.event, next.delivery, err);
      }
    }
  }

  /** Finishes the event in hand (acking it), then leaves; the position stays with the durable. */
  async stop(): Promise<void> {
    if (!this.stopping) {
      this.stopping = true;
      this.state.leave(this);
      this.state.changed.notify();
    }
    await this.done.catch((err: unknown) => this.logger.error({ err }, 'durable consumer failed'));
  }
}
