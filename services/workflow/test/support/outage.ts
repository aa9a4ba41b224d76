import { AppError } from '@nap/contracts';
import type { Collection, Doc } from '@nap/store';

/** Which store calls a fault hits: the collection's name, the method, its arguments. */
export type CallMatch = (collection: string, method: string, args: unknown[]) => boolean;

/** A call that is to fail once, and how. */
interface Fault {
  when: CallMatch;
  applied: Applied;
  error: AppError;
}

/**
 * What became of a call that failed: applied before the answer was lost (`true`), never applied
 * (`false`), or applied late, right after the first later call for which `after` holds (a write
 * that reached the server and landed after its caller gave up on it).
 */
type Applied = boolean | { after: CallMatch };

/** What MongoDB answers in a failover: the call is interrupted, or the primary cannot be reached. */
const FAILOVER_ERRORS = {
  STORE_UNAVAILABLE: 'MongoDB cannot be reached (MongoNetworkError)',
  STORE_INTERRUPTED: 'MongoDB interrupted the call (InterruptedDueToReplStateChange)',
} as const;

/**
 * A store that fails as MongoDB does in a failover or a network cut, in one process: calls of the
 * wrapped collections throw `STORE_UNAVAILABLE`, either before reaching the store (nothing written),
 * or after the store applied them (the write is durable, its answer is lost on the way back), or all
 * of them while the store is "down".
 */
export class StoreOutage {
  private isDown = false;
  private readonly faults: Fault[] = [];
  /** Calls that failed, by `collection.method`. */
  readonly failed: string[] = [];
  private readonly failedCalls: { collection: string; method: string; args: unknown[] }[] = [];
  /** Failed calls to apply late, each right after a later call that `after` matches. */
  private readonly late: { after: CallMatch; apply: () => unknown }[] = [];

  /** Every later call fails, nothing reaching the store, until {@link up}. */
  down(): void {
    this.isDown = true;
  }

  up(): void {
    this.isDown = false;
  }

  get isUp(): boolean {
    return !this.isDown;
  }

  /**
   * The first later call for which `when` holds fails once (`STORE_UNAVAILABLE` unless `code` says
   * otherwise): with `applied: true`, after the store applied it (the caller does not learn that it
   * did); with `false`, before it reaches the store; with `{ after }`, at once, and the store applies
   * it later, right after the first later call that `after` matches completes.
   */
  failOnce(when: CallMatch, options: { applied: Applied; code?: keyof typeof FAILOVER_ERRORS }): void {
    const code = options.code ?? 'STORE_UNAVAILABLE';
    this.faults.push({ when, applied: options.applied, error: new AppError(code, FAILOVER_ERRORS[code]) });
  }

  /** True once every fault added with {@link failOnce} has hit (and every late call landed). */
  get spent(): boolean {
    return this.faults.length === 0 && this.late.length === 0;
  }

  /** How many calls for which `match` holds failed. */
  failedWhere(match: CallMatch): number {
    return this.failedCalls.filter((c) => match(c.collection, c.method, c.args)).length;
  }

  private failure(collection: string, method: string, args: unknown[], error?: AppError): AppError {
    this.failed.push(`${collection}.${method}`);
    this.failedCalls.push({ collection, method, args });
    return error ?? new AppError('STORE_UNAVAILABLE', FAILOVER_ERRORS.STORE_UNAVAILABLE);
  }

  wrap<T extends Doc>(collection: Collection<T>): Collection<T> {
    return new Proxy(collection, {
      get: (target, prop, receiver) => {
        const value: unknown = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function' || prop === 'name') return value;
        const method = String(prop);
        return (...args: unknown[]) => {
          if (this.isDown) return Promise.reject(this.failure(target.name, method, args));
          const call = () => (value as (...a: unknown[]) => unknown).apply(target, args);
          const at = this.faults.findIndex((f) => f.when(target.name, method, args));
          if (at < 0) {
            const landing = this.late.findIndex((l) => l.after(target.name, method, args));
            if (landing < 0) return call();
            const { apply } = this.late.splice(landing, 1)[0] as { apply: () => unknown };
            return Promise.resolve(call()).then(async (answer) => {
              await apply();
              return answer;
            });
          }
          const fault = this.faults.splice(at, 1)[0] as Fault;
          if (typeof fault.applied === 'object') {
            this.late.push({ after: fault.applied.after, apply: call });
            return Promise.reject(this.failure(target.name, method, args, fault.error));
          }
          if (!fault.applied) return Promise.reject(this.failure(target.name, method, args, fault.error));
          return Promise.resolve(call()).then(() => Promise.reject(this.failure(target.name, method, args, fault.error)));
        };
      },
    });
  }
}
