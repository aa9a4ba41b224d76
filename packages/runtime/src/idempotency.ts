import { hasCode } from '@nap/contracts';
import { IDEMPOTENCY_TTL_MS } from '@nap/bus';
import type { IdempotencyBegin, IdempotencyRecords, StoredOutcome } from '@nap/bus';
import type { Doc, Store } from '@nap/store';

/** The collection in each service's store that remembers Idempotency-Keys. */
export const IDEMPOTENCY_COLLECTION = 'idempotency_keys';

type KeyRecord = Doc & {
  fingerprint: string;
  state: 'pending' | 'done';
  /** Epoch ms until which a pending claim belongs to the request that made it. */
  leaseUntil: number;
  /** Epoch ms after which the key is forgotten. */
  expiresAt: number;
  outcome?: StoredOutcome;
};

export interface IdempotencyRecordsOptions {
  /** How long a key is remembered, ms; 24 hours by default. */
  ttlMs?: number;
  /** How often expired keys are removed, ms; hourly by default. */
  purgeEveryMs?: number;
}

/**
 * Idempotency-Key records in a service's own store (`idempotency_keys`): one document per
 * operation, caller and key, claimed by an insert (unique `_id`, so two replicas cannot both
 * claim it), completed with the success answer, removed when the request failed or 24 hours after.
 * `stop()` ends the hourly purge.
 */
export function createIdempotencyRecords(
  store: Store,
  options: IdempotencyRecordsOptions = {},
): IdempotencyRecords & { ready(): Promise<void>; stop(): void } {
  const ttlMs = options.ttlMs ?? IDEMPOTENCY_TTL_MS;
  const keys = store.collection<KeyRecord>(IDEMPOTENCY_COLLECTION);
  const purge = () => keys.deleteMany({ expiresAt: { $lt: Date.now() } });
  const timer = setInterval(() => void purge().catch(() => undefined), options.purgeEveryMs ?? 3_600_000);
  timer.unref();

  async function claim(id: string, fingerprint: string, leaseUntil: number): Promise<boolean> {
    try {
      await keys.insertOne({ _id: id, fingerprint, state: 'pending', leaseUntil, expiresAt: Date.now() + ttlMs });
      return true;
    } catch (err) {
      if (hasCode(err, 'STORE_DUPLICATE_KEY')) return false;
      throw err;
    }
  }

  return {
    async ready() {
      await keys.createIndexes([{ keys: { expiresAt: 1 } }]);
      await purge();
    },
    stop() {
      clearInterval(timer);
    },
    async begin(id, fingerprint, leaseUntil): Promise<IdempotencyBegin> {
      for (let attempt = 0; attempt < 3; attempt++) {
        if (await claim(id, fingerprint, leaseUntil)) return { state: 'new' };
        const found = await keys.findOne({ _id: id });
        if (found === null) continue;
        const now = Date.now();
        if (found.expiresAt <= now) {
          await keys.deleteOne({ _id: id, expiresAt: found.expiresAt });
          continue;
        }
        if (found.fingerprint !== fingerprint) return { state: 'mismatch' };
        if (found.state === 'done' && found.outcome) return { state: 'done', outcome: found.outcome };
        if (found.leaseUntil > now) return { state: 'busy' };
        // the request that claimed it is past its deadline (its replica died): take the claim over
        const taken = await keys.findOneAndUpdate(
          { _id: id, state: 'pending', leaseUntil: found.leaseUntil },
          { $set: { leaseUntil } },
          { returnDocument: 'after' },
        );
        return taken ? { state: 'new' } : { state: 'busy' };
      }
      return { state: 'busy' };
    },
    async complete(id, outcome) {
      await keys.updateOne({ _id: id }, { $set: { state: 'done', outcome, leaseUntil: 0 } });
    },
    async release(id) {
      await keys.deleteOne({ _id: id, state: 'pending' });
    },
  };
}
