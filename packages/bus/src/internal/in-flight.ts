/** Counts work in progress (requests not yet answered) so `close()` can wait for it, bounded. */
export class InFlight {
  private count = 0;
  private waiters: (() => void)[] = [];

  /** Registers one unit of work; call the returned function once when it ends (extra calls are ignored). */
  begin(): () => void {
    this.count++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.count--;
      if (this.count === 0) {
        const waiters = this.waiters;
        this.waiters = [];
        for (const wake of waiters) wake();
      }
    };
  }

  get size(): number {
    return this.count;
  }

  /** Resolves `true` once nothing is in flight, or `false` after `timeoutMs`. */
  idle(timeoutMs: number): Promise<boolean> {
    if (this.count === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== wake);
        resolve(false);
      }, timeoutMs);
      timer.unref();
      this.waiters.push(wake);
    });
  }
}
