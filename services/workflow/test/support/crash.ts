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

/**
 * A write whose answer comes late: the first call for which `when` holds (given its arguments) runs,
 * so the store has its write and every reader sees it, but its caller gets the answer only once
 * {@link release} is called (as under load, when the flush to disk that a write's answer waits for
 * takes long and other readers of the store go on meanwhile).
 */
export class LateAnswer {
  private when: ((collection: string, method: string, args: unknown[]) => boolean) | undefined;
  private open: (() => void) | undefined;
  private readonly released: Promise<void>;
  private holds = false;

  constructor(when: (collection: string, method: string, args: unknown[]) => boolean) {
    this.when = when;
    this.released = new Promise<void>((resolve) => (this.open = resolve));
  }

  /** True once the call was made (its write is in the store) and its answer is held. */
  get holding(): boolean {
    return this.holds;
  }

  /** Hands the held answer (and any later one) over. */
  release(): void {
    this.when = undefined;
    this.open?.();
  }

  wrap<T extends Doc>(collection: Collection<T>): Collection<T> {
    return new Proxy(collection, {
      get: (target, prop, receiver) => {
        const value: unknown = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function') return value;
        const method = String(prop);
        return (...args: unknown[]) => {
          const result = (value as (...a: unknown[]) => unknown).apply(target, args);
          if (!(result instanceof Promise) || !this.when?.(target.name, method, args)) return result;
          this.when = undefined;
          return result.then(async (answer) => {
            this.holds = true;
            await this.released;
            return answer;
          });
        };
      },
    });
  }
}

/**
 * A call held before it runs: the first call for which `when` holds (given its arguments) waits,
 * unsent to the store, until {@link release} is called; later calls go through. A test orders two
 * engines' writes with it (one engine's write lands between another's read and its own write).
 */
export class HeldCall {
  private when: ((collection: string, method: string, args: unknown[]) => boolean) | undefined;
  private open: (() => void) | undefined;
  private readonly released: Promise<void>;
  private holds = false;

  constructor(when: (collection: string, method: string, args: unknown[]) => boolean) {
    this.when = when;
    this.released = new Promise<void>((resolve) => (this.open = resolve));
  }

  /** True once the call was made and is held (nothing of it reached the store). */
  get holding(): boolean {
    return this.holds;
  }

  /** Lets the held call (and any later one) run. */
  release(): void {
    this.when = undefined;
    this.open?.();
  }

  wrap<T extends Doc>(collection: Collection<T>): Collection<T> {
    return new Proxy(collection, {
      get: (target, prop, receiver) => {
        const value: unknown = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function') return value;
        const method = String(prop);
        return (...args: unknown[]) => {
          if (!this.when?.(target.name, method, args)) return (value as (...a: unknown[]) => unknown).apply(target, args);
          this.when = undefined;
          this.holds = true;
          return this.released.then(() => (value as (...a: unknown[]) => unknown).apply(target, args));
        };
      },
    });
  }
}
