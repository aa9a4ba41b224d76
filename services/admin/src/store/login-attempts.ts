import { AppError, hasCode } from '@nap/contracts';
import type { Collection, Store } from '@nap/store';
import type { AttemptRecord } from '../domain/login-throttle';

type Stored = AttemptRecord & { version: number };

/** How often a change of one count is tried again when other replicas changed it in between. */
const MAX_CONFLICTS = 50;

/** How often expired counts are deleted, ms. */
const SWEEP_EVERY_MS = 60_000;

/**
 * The `login_attempts` collection: the counts of failed logins per username and per address, shared
 * by every admin replica (and so by every gateway). Each change is a compare-and-set on the count's
 * `version`, tried again when another replica changed the count in between, so that no failure is
 * lost however many replicas count at once.
 */
export class LoginAttemptRepository {
  private readonly attempts: Collection<Stored>;
  private lastSweep = 0;

  constructor(store: Store) {
    this.attempts = store.collection<Stored>('login_attempts');
  }

  find(id: string): Promise<AttemptRecord | null> {
    return this.attempts.findOne({ _id: id });
  }

  findMany(ids: string[]): Promise<AttemptRecord[]> {
    return this.attempts.find({ _id: { $in: ids } });
  }

  /**
   * Changes the count `id` atomically: `next` gets the count as it is (null when there is none) and
   * answers what it becomes (null: forget it) or undefined to leave it alone. Answers the count
   * `next` saw and the one written.
   */
  async change(
    id: string,
    next: (current: AttemptRecord | null) => AttemptRecord | null | undefined,
  ): Promise<{ before: AttemptRecord | null; after: AttemptRecord | null }> {
    for (let tries = 0; tries < MAX_CONFLICTS; tries += 1) {
      const current = await this.attempts.findOne({ _id: id });
      const wanted = next(current === null ? null : withoutVersion(current));
      if (wanted === undefined) return { before: current, after: current };
      if (current === null) {
        if (wanted === null) return { before: null, after: null };
        try {
          await this.attempts.insertOne({ ...wanted, _id: id, version: 1 });
          return { before: null, after: wanted };
        } catch (err) {
          if (hasCode(err, 'STORE_DUPLICATE_KEY')) continue;
          throw err;
        }
      }
      if (wanted === null) {
        if ((await this.attempts.deleteOne({ _id: id, version: current.version })) === 1) return { before: current, after: null };
        continue;
      }
      const { matchedCount } = await this.attempts.updateOne(
        { _id: id, version: current.version },
        { $set: { ...withoutId(wanted), version: current.version + 1 } },
      );
      if (matchedCount === 1) return { before: current, after: wanted };
    }
    throw new AppError(
      'CONFLICT',
      `The count of failed logins "${id}" kept changing under ${MAX_CONFLICTS} attempts to change it; try again`,
    );
  }

  /** Forgets the count (an admin's unlock). True when there was one. */
  async forget(id: string): Promise<boolean> {
    return (await this.attempts.deleteOne({ _id: id })) === 1;
  }

  /**
   * Forgets the counts that expired by `now` (epoch ms), at most once a minute per process: an
   * expired count already counts for nothing, this only keeps the collection from growing with
   * every address and username ever tried.
   */
  async forgetExpiredNow(now: number): Promise<void> {
    if (Math.abs(now - this.lastSweep) < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    await this.attempts.deleteMany({ expiresAt: { $lte: now } });
  }
}

function withoutVersion(stored: Stored): AttemptRecord {
  const { version: _version, ...record } = stored;
  return record;
}

function withoutId(record: AttemptRecord): Omit<AttemptRecord, '_id'> {
  const { _id: _unused, ...rest } = record;
  return rest;
}
