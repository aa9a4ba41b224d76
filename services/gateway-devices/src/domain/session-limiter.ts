import { AppError } from '@nap/contracts';
import { ownValue, setOwn } from '@nap/util';

/** Limits of a {@link SessionLimiter}. */
export interface SessionLimiterOptions {
  /** Sessions open at once to one device, unless the device has its own limit; default 2. */
  perDeviceLimit?: number;
  /** Sessions open at once across all devices; default 100. */
  globalLimit?: number;
  /** How long a request may wait for a slot; default 60 000 ms. */
  queueTimeoutMs?: number;
}

/** Options of one request for a slot. */
export interface AcquireOptions {
  /** This device's limit (inventory setting); overrides {@link SessionLimiter.setDeviceLimit} and the default. */
  limit?: number;
  /** Overrides the limiter's queue timeout for this request. */
  queueTimeoutMs?: number;
  /** Gives up waiting (rejects with the signal's reason) when aborted. */
  signal?: AbortSignal;
}

/** Options of {@link SessionLimiter.run}. */
export interface RunOptions extends AcquireOptions {
  /**
   * Resolve results of this device in arrival order: a request that finishes early waits (without
   * holding a slot) until every earlier ordered request of the same device has settled. Default false.
   */
  ordered?: boolean;
}

/** Counters of a limiter, for metrics and tests. */
export interface SessionLimiterStats {
  active: number;
  queued: number;
  devices: Record<string, { active: number; queued: number }>;
}

/** Gives a slot back; calling it again does nothing. */
export type ReleaseSlot = () => void;

/**
 * Bounds the SSH and NETCONF sessions the gateway opens: per device (a device allows few vty lines,
 * and a job must not take them all) and overall (memory and file descriptors). Waiting requests are
 * served first come, first served: requests to one device start in arrival order, and a request for
 * a free device is never held back by requests for a busy one.
 */
export interface SessionLimiter {
  /**
   * Waits for a slot for `deviceKey` and returns its release. Rejects with `DEVICE_TIMEOUT` when none
   * frees up within the queue timeout.
   */
  acquire(deviceKey: string, options?: AcquireOptions): Promise<ReleaseSlot>;
  /** Runs `fn` holding a slot for `deviceKey`; the slot is released however `fn` ends. */
  run<T>(deviceKey: string, fn: () => Promise<T>, options?: RunOptions): Promise<T>;
  /** Sets (or with `undefined` clears) the limit of one device. */
  setDeviceLimit(deviceKey: string, limit: number | undefined): void;
  /**
   * Changes the limits while requests run (an operator's live settings): a raised limit lets waiting
   * requests in at once; a lowered one lets sessions already open finish, and grants no more until
   * fewer are open. A new queue timeout applies to requests that start waiting from now on.
   */
  setLimits(limits: SessionLimiterOptions): void;
  stats(): SessionLimiterStats;
}

interface Waiter {
  key: string;
  /** The limit the request itself named (a device's inventory setting), if any. */
  requested: number | undefined;
  grant: (release: ReleaseSlot) => void;
}

interface DeviceState {
  active: number;
  /** Settles when the latest ordered request of the device has settled. */
  orderedTail: Promise<void>;
  orderedPending: number;
}

/** Creates a limiter; one per process, shared by every request and job. */
export function createSessionLimiter(options: SessionLimiterOptions = {}): SessionLimiter {
  let perDeviceLimit = positive(options.perDeviceLimit ?? 2, 'perDeviceLimit');
  let globalLimit = positive(options.globalLimit ?? 100, 'globalLimit');
  let defaultQueueTimeoutMs = options.queueTimeoutMs ?? 60_000;
  const devices = new Map<string, DeviceState>();
  const deviceLimits = new Map<string, number>();
  // One queue in arrival order across devices; see pump().
  let waiting: Waiter[] = [];
  let active = 0;

  function state(key: string): DeviceState {
    let s = devices.get(key);
    if (s === undefined) {
      s = { active: 0, orderedTail: Promise.resolve(), orderedPending: 0 };
      devices.set(key, s);
    }
    return s;
  }

  function forget(key: string): void {
    const s = devices.get(key);
    if (s !== undefined && s.active === 0 && s.orderedPending === 0 && !waiting.some((w) => w.key === key)) devices.delete(key);
  }

  function limitOf(key: string, requested: number | undefined): number {
    return positive(requested ?? deviceLimits.get(key) ?? perDeviceLimit, 'limit');
  }

  function makeRelease(key: string): ReleaseSlot {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      active -= 1;
      state(key).active -= 1;
      pump();
      forget(key);
    };
  }

  // Grants slots in arrival order. A device whose first waiter cannot start blocks its later waiters
  // (per-device FIFO) but not other devices' waiters.
  function pump(): void {
    if (waiting.length === 0) return;
    const blocked = new Set<string>();
    const still: Waiter[] = [];
    for (const w of waiting) {
      if (active >= globalLimit || blocked.has(w.key)) {
        still.push(w);
        continue;
      }
      const s = state(w.key);
      if (s.active >= limitOf(w.key, w.requested)) {
        blocked.add(w.key);
        still.push(w);
        continue;
      }
      s.active += 1;
      active += 1;
      w.grant(makeRelease(w.key));
    }
    waiting = still;
  }

  function acquire(deviceKey: string, opts: AcquireOptions = {}): Promise<ReleaseSlot> {
    const limit = limitOf(deviceKey, opts.limit);
    const queueTimeoutMs = opts.queueTimeoutMs ?? defaultQueueTimeoutMs;
    const signal = opts.signal;
    if (signal?.aborted === true) return Promise.reject(toError(signal.reason));
    return new Promise<ReleaseSlot>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const onAbort = (): void => {
        if (!remove()) return;
        reject(toError(signal?.reason));
      };
      const waiter: Waiter = {
        key: deviceKey,
        requested: opts.limit,
        grant: (release) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve(release);
        },
      };
      const remove = (): boolean => {
        const at = waiting.indexOf(waiter);
        if (at < 0) return false;
        waiting.splice(at, 1);
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        // The removed waiter may have been the one blocking its device's later waiters.
        pump();
        forget(deviceKey);
        return true;
      };
      waiting.push(waiter);
      pump();
      if (waiting.includes(waiter)) {
        timer = setTimeout(() => {
          const queuedForDevice = waiting.filter((w) => w.key === deviceKey).length;
          if (!remove()) return;
          reject(
            new AppError(
              'DEVICE_TIMEOUT',
              `No session to device "${deviceKey}" became free within ${queueTimeoutMs} ms (limit ${limit}, ${queuedForDevice} waiting)`,
              {
                details: { device: deviceKey, limit, queueTimeoutMs, reason: 'session-queue' },
              },
            ),
          );
        }, queueTimeoutMs);
        signal?.addEventListener('abort', onAbort, { once: true });
      }
    });
  }

  async function run<T>(deviceKey: string, fn: () => Promise<T>, opts: RunOptions = {}): Promise<T> {
    let settleOrdered: (() => void) | undefined;
    let previous: Promise<void> | undefined;
    if (opts.ordered === true) {
      // Taken at arrival, so the chain follows arrival order whatever the grant timing.
      const s = state(deviceKey);
      previous = s.orderedTail;
      s.orderedPending += 1;
      s.orderedTail = new Promise<void>((resolve) => {
        settleOrdered = () => {
          s.orderedPending -= 1;
          resolve();
          forget(deviceKey);
        };
      });
    }
    try {
      let outcome: { ok: true; value: T } | { ok: false; error: unknown };
      try {
        const release = await acquire(deviceKey, opts);
        try {
          outcome = { ok: true, value: await fn() };
        } finally {
          release();
        }
      } catch (error) {
        outcome = { ok: false, error };
      }
      if (previous !== undefined) await previous;
      if (!outcome.ok) throw outcome.error;
      return outcome.value;
    } finally {
      settleOrdered?.();
    }
  }

  return {
    acquire,
    run,
    setDeviceLimit(deviceKey, limit) {
      if (limit === undefined) deviceLimits.delete(deviceKey);
      else deviceLimits.set(deviceKey, positive(limit, 'limit'));
      pump();
    },
    setLimits(limits) {
      if (limits.perDeviceLimit !== undefined) perDeviceLimit = positive(limits.perDeviceLimit, 'perDeviceLimit');
      if (limits.globalLimit !== undefined) globalLimit = positive(limits.globalLimit, 'globalLimit');
      if (limits.queueTimeoutMs !== undefined) defaultQueueTimeoutMs = positive(limits.queueTimeoutMs, 'queueTimeoutMs');
      pump();
    },
    stats() {
      const perDevice: Record<string, { active: number; queued: number }> = {};
      for (const [key, s] of devices) setOwn(perDevice, key, { active: s.active, queued: 0 });
      for (const w of waiting) {
        // own members only: a device named constructor must not count its waiters on Object itself
        let entry = ownValue(perDevice, w.key);
        if (entry === undefined) setOwn(perDevice, w.key, (entry = { active: 0, queued: 0 }));
        entry.queued += 1;
      }
      return { active, queued: waiting.length, devices: perDevice };
    },
  };
}

function positive(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1)
    throw new AppError('VALIDATION_FAILED', `Session ${name} must be a whole number of at least 1, got ${value}`);
  return value;
}

function toError(reason: unknown): Error {
  return reason instanceof Error ? reason : new AppError('TIMEOUT', 'The request was aborted while waiting for a device session');
}
