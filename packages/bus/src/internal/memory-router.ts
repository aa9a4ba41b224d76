import type { BusHeaders } from '../types';
import { subjectMatches } from '../subject-match';
import { copyBytes, copyHeaders } from './headers';

/** A message on its way to one subscriber: its own copy of the bytes and headers. */
export interface Delivery {
  subject: string;
  data: Uint8Array;
  headers: BusHeaders;
  /** Present when the sender waits for a reply (a request). */
  reply?: (data: Uint8Array, headers?: BusHeaders) => void;
}

/**
 * One subscription on the in-memory router. Deliveries are queued and dispatched on a microtask,
 * in order, so a publisher is never re-entered by its subscribers (as with a socket); a microtask
 * rather than a macrotask because a request crosses the router twice and each hop would
 * otherwise wait for the next turn of the event loop.
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
      queueMicrotask(() => this.flush());
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
  /** Subject → who matches it, so a hot subject is not matched against every pattern each time. */
  private readonly matches = new Map<string, { plain: MemorySubscription[]; groups: Map<string, MemorySubscription[]> }>();

  add(subscription: MemorySubscription): void {
    this.subscriptions.push(subscription);
    this.matches.clear();
  }

  remove(subscription: MemorySubscription): void {
    const i = this.subscriptions.indexOf(subscription);
    if (i >= 0) this.subscriptions.splice(i, 1);
    this.matches.clear();
  }

  private match(subject: string): { plain: MemorySubscription[]; groups: Map<string, MemorySubscription[]> } {
    let found = this.matches.get(subject);
    if (found) return found;
    found = { plain: [], groups: new Map() };
    for (const sub of this.subscriptions) {
      if (!subjectMatches(sub.pattern, subject)) continue;
      if (sub.queue === undefined) {
        found.plain.push(sub);
        continue;
      }
      const members = found.groups.get(sub.queue);
      if (members === undefined) found.groups.set(sub.queue, [sub]);
      else members.push(sub);
    }
    // subjects are unbounded (inboxes, event ids): keep the cache small
    if (this.matches.size >= 4096) this.matches.clear();
    this.matches.set(subject, found);
    return found;
  }

  /** Routes a message (copied for each receiver) and returns how many subscriptions got it. */
  route(subject: string, data: Uint8Array, headers: BusHeaders | undefined, reply?: Delivery['reply']): number {
    const { plain, groups } = this.match(subject);
    const targets: MemorySubscription[] = [...plain];
    for (const [queue, members] of groups) {
      const turn = this.turns.get(queue) ?? 0;
      this.turns.set(queue, turn + 1);
      const chosen = members[turn % members.length];
      if (chosen !== undefined) targets.push(chosen);
    }
    let delivered = 0;
    for (const sub of targets) {
      const delivery: Delivery = { subject, data: copyBytes(data), headers: copyHeaders(headers) };
      if (reply !== undefined) delivery.reply = reply;
      if (sub.enqueue(delivery)) delivered++;
    }
    return delivered;
  }
}
