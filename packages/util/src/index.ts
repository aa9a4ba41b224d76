/**
 * The small helpers every package needs, in one place: type guards for values read from JSON,
 * the message of any thrown value, and a sleep that never keeps the process alive.
 */

/** True for any non-null object that is not an array (a JSON object, a class instance, a map). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A plain object: a `{}` literal or `Object.create(null)`, from any realm; not an array, date, buffer or class instance. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto === null) return true;
  return Object.getPrototypeOf(proto) === null && Object.prototype.toString.call(value) === '[object Object]';
}

/** The message of any thrown value, for logs and wrapped errors. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Resolves after `ms`, or early when `signal` aborts; its timer never keeps the process alive. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) {
      resolve();
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    timer.unref();
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * `{ ...base, ...members }`, made the way V8 keeps fast. Node 20's V8 gives an object made by a spread
 * a map it then copies slowly for every member added to it: `{ ...payload, seq }` costs about 1 µs
 * where `Object.assign({}, payload, { seq })` costs 0.1 µs, and the engine makes such objects for
 * every task and every event. An own `__proto__` member (JSON.parse makes them) is kept as a member,
 * as a spread keeps it, rather than taken for the prototype as `Object.assign` would.
 */
export function merged<A extends object, B extends object>(base: A | undefined, members: B): A & B {
  if ((base !== undefined && Object.hasOwn(base, '__proto__')) || Object.hasOwn(members, '__proto__'))
    return { ...base, ...members } as A & B;
  return Object.assign({}, base, members);
}

/**
 * A map that forgets its least recently set entries beyond `limit`: for what a process keeps per
 * job, client or value (secrets found, audiences, sequences) and must not keep for ever.
 */
export class RecentMap<K, V> {
  private readonly map = new Map<K, V>();
  constructor(private readonly limit: number) {}
  get size(): number {
    return this.map.size;
  }
  get(key: K): V | undefined {
    return this.map.get(key);
  }
  has(key: K): boolean {
    return this.map.has(key);
  }
  /** Sets `key` as the most recent entry, forgetting the oldest beyond the limit. */
  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.limit) {
      const oldest = this.map.keys().next();
      if (oldest.done !== true) this.map.delete(oldest.value);
    }
  }
  delete(key: K): void {
    this.map.delete(key);
  }
  clear(): void {
    this.map.clear();
  }
}

/**
 * A module loaded on its first use rather than when the file that needs it loads: `load` (a
 * `require` in the caller's file, so that it resolves from there) runs once, on the first call.
 * For libraries that only some work needs (the MongoDB driver, SAML, OpenAPI parsing, SSH, LDAP,
 * outbound HTTP, the tracing SDK): every process and every test file loaded them at start, about
 * 600 of a standalone platform's 2,400 modules.
 */
export function onFirstUse<T>(load: () => T): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= load());
}

/**
 * An ISO 8601 time for a document changed at `now` (epoch ms) whose last change was at `previous`:
 * `now`, or a millisecond after `previous` when the clock has not passed it (two changes in one
 * millisecond, a replica whose clock is behind). A change guarded by the `lastUpdated` it read
 * (compare and set) then always sees the one before it.
 */
export function changedAfter(previous: string | undefined, now: number): string {
  const before = previous === undefined ? Number.NaN : Date.parse(previous);
  return new Date(Number.isFinite(before) && before >= now ? before + 1 : now).toISOString();
}

/*
 * Objects used as maps whose keys come from users (request bodies, job and template variables,
 * integration specs, stored documents): only own members count, and `__proto__` (JSON.parse makes
 * an own member of that name) is a member like any other.
 */

/** The own member `key` of `map`, or undefined: `constructor` or `toString` are names, not Object's members. */
export function ownValue<T>(map: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(map, key) ? map[key] : undefined;
}

/** `target[key] = value` as an own member whatever `key` is: an assignment to `__proto__` would set the prototype instead, dropping the member unseen. */
export function setOwn<T>(target: Record<string, T>, key: string, value: NoInfer<T>): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

export { ADDRESS_REFUSED, createGuardedLookup, guardedLookup, refusedLiteralAddress } from './network-addresses';
export type { LookupCallback, Resolver } from './network-addresses';

/**
 * Freezes `value` and every object below it, in place, and answers it: data shared read-only (a
 * parsed workflow that many jobs use). JSON data: no cycles. An object frozen already is taken as
 * frozen whole and not walked again.
 */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}
