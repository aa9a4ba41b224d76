import { AppError, hasCode } from '@nap/contracts';
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
   * Counts one more attempt of (jobId, attemptID) and schedules it at `reattemptAt` (epoch ms);
   * answers the stored attempt, or undefined when `attempts` (when above 0) are used up: then
   * nothing is written, neither the count nor the time of the attempt still waiting. The count and
   * the limit are one conditional update, so two calls at once never both take the last attempt.
   */
  async schedule(jobId: string, attemptID: string, minutes: number, attempts: number, reattemptAt: number): Promise<Reattempt | undefined> {
    const update = { $inc: { attempt: 1 }, $set: { attempts, minutes, reattemptAt, status: 'waiting' } };
    for (let tries = 0; tries < 5; tries++) {
      try {
        const doc = await this.collection.findOneAndUpdate(
          attempts > 0 ? { jobId, attemptID, attempt: { $lt: attempts } } : { jobId, attemptID },
          update,
          { upsert: true, returnDocument: 'after' },
        );
        // an upsert that returns the document after the update always finds one
        if (doc === null) throw new Error(`The re-attempt of step "${attemptID}" of job "${jobId}" was not stored`);
        return doc;
      } catch (err) {
        // the upsert met the stored attempt: the filter left it out because its attempts are used up,
        // or another call inserted it first (then count again)
        if (!hasCode(err, 'STORE_DUPLICATE_KEY')) throw err;
        const stored = await this.collection.findOne({ jobId, attemptID });
        if (stored !== null && attempts > 0 && stored.attempt >= attempts) return undefined;
      }
    }
    throw new AppError('CONFLICT', `The re-attempt of step "${attemptID}" of job "${jobId}" changed under five tries in a row; try again`);
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
