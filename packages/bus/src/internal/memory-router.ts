import type { BusHeaders } from '../types';
import { subjectMatches } from '../subject-match';
import { copyHeaders } from './headers';

/** A message on its way to one subscriber: its own copy of the bytes and headers. */
export interface Delivery {
  subject: string;
  data: Uint8Array;
  headers: BusHeaders;
  /** Present when the sender waits for a reply (a request). */
  reply?: (data: Uint8Array, headers?: BusHeaders) => void;
}

/**
 * One subscription on the in-memory router. Deliveries are queued and dispatched on a later
 * macrotask, in order, so a publisher is never re-entered by its subscribers (as with a socket).
 */
export class MemorySubscription {
  private pending: Delivery[] = [];
  private scheduled = false;
  private accepting = true;
  private idleWaiters: (() => void)[] = [];

  constructor(
    readonly pattern: string,
    readonly queue: string | undefined,
    private readonly dispatch: (delivery: Delivery) => void,
  ) {}

  /** Queues a delivery; false when the subscription no longer accepts messages. */
  enqueue(delivery: Delivery): boolean {
    if (!this.accepting) return false;
    this.pending.push(delivery);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    return true;
  }

  /** Stops accepting and resolves once every queued delivery has been dispatched. */
  drain(): Promise<void> {
    this.accepting = false;
    if (this.pending.length === 0 && !this.scheduled) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.pending;
    this.pending = [];
    for (const delivery of batch) this.dispatch(delivery);
    if (this.pending.length === 0 && !this.scheduled) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const wake of waiters) wake();
    }
  }
}

/**
 * Subject routing of the memory broker, as a NATS server routes: every plain subscription whose
 * pattern matches gets the message, and each queue group (by queue name) gives it to one member,
 * chosen round-robin.
 */
export class MemoryRouter {
  private readonly subscriptions: MemorySubscription[] = [];
  private readonly turns = new Map<string, number>();

  add(subscription: MemorySubscription): void {
    this.subscriptions.push(subscription);
  }

  remove(subscription: MemorySubscription): void {
    const i = this.subscriptions.indexOf(subscription);
    if (i >= 0) this.subscriptions.splice(i, 1);
  }

  /** Routes a message (copied for each receiver) and returns how many subscriptions got it. */
  route(subject: string, data: Uint8Array, headers: BusHeaders | undefined, reply?: Delivery['reply']): number {
    const groups = new Map<string, MemorySubscription[]>();
    const targets: MemorySubscription[] = [];
    for (const sub of this.subscriptions) {
      if (!subjectMatches(sub.pattern, subject)) continue;
      if (sub.queue === undefined) {
        targets.push(sub);
        continue;
      }
      const members = groups.get(sub.queue);
      if (members === undefined) groups.set(sub.queue, [sub]);
      else members.push(sub);
    }
    for (const [queue, members] of groups) {
      const turn = this.turns.get(queue) ?? 0;
      this.turns.set(queue, turn + 1);
      const chosen = members[turn % members.length];
      if (chosen !== undefined) targets.push(chosen);
    }
    let delivered = 0;
    for (const sub of targets) {
      const delivery: Delivery = { subject, data: data.slice(), headers: copyHeaders(headers) };
      if (reply !== undefined) delivery.reply = reply;
      if (sub.enqueue(delivery)) delivered++;
    }
    return delivered;
  }
}
