import type { Subscription } from '../types';

/**
 * The running consumers of one kind (event consumers, work-queue consumers): each is stopped by its
 * subscription's `unsubscribe`, or with every other one by `stopAll` when the bus closes.
 */
export class ConsumerSet {
  private readonly stops = new Set<() => Promise<void>>();

  /** Keeps a running consumer, `stop` ending it; answers the subscription that stops it and forgets it. */
  add(stop: () => Promise<void>): Subscription {
    this.stops.add(stop);
    return {
      unsubscribe: async () => {
        this.stops.delete(stop);
        await stop();
      },
    };
  }

  /** Stops every consumer kept (each failure aside) and forgets them. */
  async stopAll(): Promise<void> {
    await Promise.allSettled([...this.stops].map((stop) => stop()));
    this.stops.clear();
  }
}
