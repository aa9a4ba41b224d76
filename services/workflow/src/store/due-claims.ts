import type { Collection, Doc, Filter } from '@nap/store';

/** Who holds a due time, and when they last said so (epoch ms). */
export interface DueClaim {
  serverId: string;
  claimTime: number;
}

/** A document with a due time (`nextRunAt`, epoch ms; null when nothing is due any more) fired under a claim (`fire`). */
export type DueDocument = Doc & { nextRunAt?: number | null; fire?: DueClaim };

/** Claims that do not stop another claim: none, one older than `expiredBefore`, or one of server `mine`. */
function free(expiredBefore: number, mine: string | undefined): Filter[] {
  const out: Filter[] = [{ fire: { $exists: false } }, { 'fire.claimTime': { $lt: expiredBefore } }];
  if (mine !== undefined) out.push({ 'fire.serverId': mine });
  return out;
}

/**
 * Claims on due times, the way every engine replica fires something once per due time: schedule
 * triggers and the job retention. Whoever finds a document due claims it with a conditional update
 * (its server id and the claim time), only when nobody holds it or the holder's claim is older
 * than the lease (the holder died); the holder renews the claim while it works, then moves the due
 * time on and releases the claim in one conditional update. The work done for a due time must be
 * keyed by it (a job id, an archive id derived from the due time), so that a replica that takes a
 * lapsed claim over repeats nothing its dead holder finished.
 */
export class DueClaims<T extends DueDocument> {
  constructor(private readonly collection: Collection<T>) {}

  /**
   * Ids of documents matching `filter` that are due at `now` and unclaimed (or whose claim is older
   * than `expiredBefore`), earliest first. With `mine`, claims of that server count as free too: a
   * process restarted under the same id takes its own claims back at once (its former self is dead),
   * as it resumes its own jobs; its parts never look for work while they hold a claim.
   */
  async due(filter: Filter, now: number, expiredBefore: number, limit = 100, mine?: string): Promise<string[]> {
    const found = await this.collection.find(
      {
        ...filter,
        nextRunAt: { $ne: null, $lte: now },
        $or: free(expiredBefore, mine),
      },
      { projection: { _id: 1 }, limit, sort: { nextRunAt: 1 } },
    );
    return found.map((d) => d._id);
  }

  /**
   * Claims the due time of a document for `serverId` (atomic): only while it still matches `filter`,
   * is due, and is unclaimed or claimed longer ago than `leaseMs` (or, with `takeOwn`, claimed by
   * `serverId` itself: see {@link due}). The claimed document, or null.
   */
  claim(id: string, filter: Filter, serverId: string, now: number, leaseMs: number, takeOwn = false): Promise<T | null> {
    return this.collection.findOneAndUpdate(
      {
        ...filter,
        _id: id,
        nextRunAt: { $ne: null, $lte: now },
        $or: free(now - leaseMs, takeOwn ? serverId : undefined),
      },
      { $set: { 'fire.serverId': serverId, 'fire.claimTime': now } },
      { returnDocument: 'after' },
    );
  }

  /** Renews the claim of `serverId` while it works; false when it lost it. */
  async renew(id: string, serverId: string, now: number): Promise<boolean> {
    return (await this.collection.updateOne({ _id: id, 'fire.serverId': serverId }, { $set: { 'fire.claimTime': now } })).matchedCount > 0;
  }

  /**
   * Moves a document on after its due time was fired: `set` (the next due time among it) and the
   * claim released, only while `serverId` still holds it, the due time is still `from` (it did not
   * change meanwhile) and the document matches `filter`.
   */
  async advance(id: string, serverId: string, from: number, set: Record<string, unknown>, filter: Filter = {}): Promise<boolean> {
    const res = await this.collection.updateOne(
      { ...filter, _id: id, 'fire.serverId': serverId, nextRunAt: from },
      { $set: set, $unset: { fire: '' } },
    );
    return res.matchedCount > 0;
  }

  /** Releases a claim without moving on (the replica stops, or the work should be tried again). */
  async release(id: string, serverId: string): Promise<void> {
    await this.collection.updateOne({ _id: id, 'fire.serverId': serverId }, { $unset: { fire: '' } });
  }
}
