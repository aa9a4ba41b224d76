import type { Reattempt } from '@nap/contracts';
import type { Collection, Doc, Store } from '@nap/store';
import { COLLECTIONS } from './collections';

/** Scheduled re-attempts, counted per job and attempt id; durable so that a restart resumes them. */
export class ReattemptRepository {
  private readonly collection: Collection<Reattempt & Doc>;

  constructor(store: Store) {
    this.collection = store.collection<Reattempt & Doc>(COLLECTIONS.reattempts);
  }

  /**
   * Counts one more attempt of (jobId, attemptID) and schedules it; answers the stored attempt.
   * `timeScale` (NAP_TIME_SCALE) makes the wait that many times shorter; `minutes` stays as asked.
   */
  async schedule(jobId: string, attemptID: string, minutes: number, attempts: number, now = Date.now(), timeScale = 1): Promise<Reattempt> {
    const reattemptAt = now + Math.round((minutes * 60_000) / timeScale);
    const doc = await this.collection.findOneAndUpdate(
      { jobId, attemptID },
      { $inc: { attempt: 1 }, $set: { attempts, minutes, reattemptAt, status: 'waiting' } },
      { upsert: true, returnDocument: 'after' },
    );
    // an upsert that returns the document after the update always finds one
    if (doc === null) throw new Error(`The re-attempt of step "${attemptID}" of job "${jobId}" was not stored`);
    return doc;
  }

  /** Takes back the count of an attempt that was refused. */
  async uncount(id: string): Promise<void> {
    await this.collection.updateOne({ _id: id }, { $inc: { attempt: -1 } });
  }

  async waiting(): Promise<Reattempt[]> {
    return this.collection.find({ status: 'waiting' }, { sort: { reattemptAt: 1 } });
  }

  /** Marks an attempt due; false when it was no longer waiting (another replica took it). */
  async markDue(id: string, reattemptAt: number): Promise<boolean> {
    const res = await this.collection.updateOne(
      { _id: id, status: 'waiting', reattemptAt },
      { $set: { status: 'due', dueAt: Date.now() } },
    );
    return res.modifiedCount === 1;
  }
}
