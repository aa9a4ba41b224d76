import type { Collection, Doc } from '@nap/store';

/**
 * A process death as the store sees it, in one process: once the switch trips, every call of the
 * wrapped collections hangs forever (nothing more is written or read, no error comes back), so the
 * engine that uses them is as good as killed with SIGKILL at that point; another engine on the same
 * store then finds exactly what was on disk.
 */
export class CrashSwitch {
  private dead = false;
  private tripAfter: ((collection: string, method: string) => boolean) | undefined;
  private tripBefore: ((collection: string, method: string, args: unknown[]) => boolean) | undefined;

  /** True once the switch tripped. */
  get crashed(): boolean {
    return this.dead;
  }

  /** Trips now: every later call hangs. */
  crashNow(): void {
    this.dead = true;
  }

  /** Trips right after the first call for which `when` holds has completed (its write is durable, its caller gets the answer). */
  crashAfter(when: (collection: string, method: string) => boolean): void {
    this.tripAfter = when;
  }

  /** Trips instead of the first call for which `when` holds (given its arguments): that call and every later one never happen. */
  crashBefore(when: (collection: string, method: string, args: unknown[]) => boolean): void {
    this.tripBefore = when;
  }

  wrap<T extends Doc>(collection: Collection<T>): Collection<T> {
    return new Proxy(collection, {
      get: (target, prop, receiver) => {
        const value: unknown = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function') return value;
        const method = String(prop);
        return (...args: unknown[]) => {
          if (!this.dead && this.tripBefore?.(target.name, method, args)) {
            this.tripBefore = undefined;
            this.dead = true;
          }
          if (this.dead) return new Promise(() => undefined);
          const result = (value as (...a: unknown[]) => unknown).apply(target, args);
          if (!(result instanceof Promise)) return result;
          return result.then((answer) => {
            if (!this.dead && this.tripAfter?.(target.name, method)) {
              this.tripAfter = undefined;
              this.dead = true;
            }
            return answer;
          });
        };
      },
    });
  }
}

/** Which calls a hold catches: the first for which this holds, given the collection, method and arguments. */
type CallMatch = (collection: string, method: string, args: unknown[]) => boolean;

/**
 * The first call of the wrapped collections that `when` matches is held until {@link release}:
 * before it runs ({@link HeldCall}) or after it ran, its answer held ({@link LateAnswer}); later
 * calls go through.
 */
abstract class StoreCallHold {
  private when: CallMatch | undefined;
  private open: (() => void) | undefined;
  protected readonly released: Promise<void>;
  protected holds = false;

  constructor(when: CallMatch) {
    this.when = when;
    this.released = new Promise<void>((resolve) => (this.open = resolve));
  }

  /** True once the call was made and is held. */
  get holding(): boolean {
    return this.holds;
  }

  /** Lets the held call, or its answer, (and any later one) go on. */
  release(): void {
    this.when = undefined;
    this.open?.();
  }

  /** The matched call, held as this kind of hold holds it. */
  protected abstract hold(run: () => unknown): unknown;

  wrap<T extends Doc>(collection: Collection<T>): Collection<T> {
    return new Proxy(collection, {
      get: (target, prop, receiver) => {
        const value: unknown = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function') return value;
        const method = String(prop);
        return (...args: unknown[]) => {
          const run = () => (value as (...a: unknown[]) => unknown).apply(target, args);
          if (!this.when?.(target.name, method, args)) return run();
          this.when = undefined;
          return this.hold(run);
        };
      },
    });
  }
}

/**
 * A write whose answer comes late: the first call `when` matches runs, so the store has its write
 * and every reader sees it, but its caller gets the answer only once {@link release} is called (as
 * under load, when the flush to disk that a write's answer waits for takes long and other readers of
 * the store go on meanwhile). {@link holding}: the write is in the store and its answer held.
 */
export class LateAnswer extends StoreCallHold {
  protected hold(run: () => unknown): unknown {
    const result = run();
    if (!(result instanceof Promise)) return result;
    return result.then(async (answer) => {
      this.holds = true;
      await this.released;
      return answer;
    });
  }
}

/**
 * A call held before it runs: the first call `when` matches waits, unsent to the store, until
 * {@link release} is called. A test orders two engines' writes with it (one engine's write lands
 * between another's read and its own write). {@link holding}: nothing of the call reached the store.
 */
export class HeldCall extends StoreCallHold {
  protected hold(run: () => unknown): unknown {
    this.holds = true;
    return this.released.then(run);
  }
}
