import { AppError, hasCode } from '@nap/contracts';
import type { Collection, ListQuery, Store } from '@nap/store';
import type { ArchiveBatchRecord, JobArchiveRecord } from '../domain/job-archive';
import { DueClaims } from './due-claims';

/** The archives still being filled: what their claims are taken among. */
const RUNNING = { state: 'running' };

/**
 * The `job_archives` collection: one document per archive, its progress (the next batch, where the
 * search for root jobs goes on, the totals of the batches done) and, while it is being filled, the
 * claim of the replica that fills it ({@link DueClaims}: a running archive is due from its creation
 * on, and completing it moves it on to no due time).
 */
export class JobArchiveRepository {
  private readonly archives: Collection<JobArchiveRecord>;
  private readonly claims: DueClaims<JobArchiveRecord>;

  constructor(store: Store) {
    this.archives = store.collection<JobArchiveRecord>('job_archives');
    this.claims = new DueClaims(this.archives);
  }

  /** Stores a new archive; false when one with its id exists (the retention's archive of a due time made by another replica). */
  async insert(record: JobArchiveRecord): Promise<boolean> {
    try {
      await this.archives.insertOne(record);
      return true;
    } catch (err) {
      if (hasCode(err, 'STORE_DUPLICATE_KEY')) return false;
      throw err;
    }
  }

  find(id: string): Promise<JobArchiveRecord | null> {
    return this.archives.findOne({ _id: { $eq: id } });
  }

  /** A retention archive still being filled, if there is one. */
  runningFromRetention(): Promise<JobArchiveRecord | null> {
    return this.archives.findOne({ state: 'running', origin: 'retention' });
  }

  /** The archive; 404 JOB_ARCHIVE_NOT_FOUND otherwise. */
  async get(id: string): Promise<JobArchiveRecord> {
    const found = await this.find(id);
    if (found === null) throw new AppError('JOB_ARCHIVE_NOT_FOUND', `No job archive with id "${id}"`);
    return found;
  }

  async page(query: ListQuery): Promise<{ items: JobArchiveRecord[]; total: number }> {
    const [items, total] = await Promise.all([
      this.archives.find(query.filter, { sort: query.sort, skip: query.skip, limit: query.limit }),
      this.archives.countDocuments(query.filter),
    ]);
    return { items, total };
  }

  /**
   * Ids of running archives that nobody fills (or whose filler's claim is older than `expiredBefore`,
   * or is `serverId`'s own: a restarted process goes on with its archives at once), oldest first.
   */
  waiting(serverId: string, now: number, expiredBefore: number): Promise<string[]> {
    return this.claims.due(RUNNING, now, expiredBefore, 10, serverId);
  }

  /** Claims a running archive for `serverId`; the archive, or null when another replica holds it or it is complete. */
  claim(id: string, serverId: string, now: number, leaseMs: number): Promise<JobArchiveRecord | null> {
    return this.claims.claim(id, RUNNING, serverId, now, leaseMs, true);
  }

  /** Renews the claim of `serverId`; false when it lost it. */
  renew(id: string, serverId: string, now: number): Promise<boolean> {
    return this.claims.renew(id, serverId, now);
  }

  release(id: string, serverId: string): Promise<void> {
    return this.claims.release(id, serverId);
  }

  /**
   * Marks a complete archive deleted, by `by` at `now`; the archive as stored afterwards (one
   * deleted before keeps when and by whom), or null when it is not complete nor deleted (running,
   * or gone). Marked first, its parts removed after: a download never reads a file in part.
   */
  async markDeleted(id: string, by: string, now: number): Promise<JobArchiveRecord | null> {
    const marked = await this.archives.findOneAndUpdate(
      { _id: { $eq: id }, state: 'complete' },
      { $set: { state: 'deleted', deletedAt: new Date(now).toISOString(), deletedBy: by } },
      { returnDocument: 'after' },
    );
    if (marked !== null) return marked;
    const found = await this.find(id);
    return found?.state === 'deleted' ? found : null;
  }

  /**
   * Counts batch `batch` (done) into its archive and moves the archive on to the next batch, once:
   * only while the archive's next batch is still this one, whoever does it.
   */
  async batchDone(batch: ArchiveBatchRecord): Promise<void> {
    await this.archives.updateOne(
      { _id: batch.archive, nextBatch: batch.seq },
      {
        $inc: { jobs: batch.members?.length ?? 0, roots: batch.roots ?? 0, bytes: batch.bytes ?? 0 },
        $set: { nextBatch: batch.seq + 1, cursor: batch.cursorAfter },
      },
    );
  }

  /** Completes the archive `serverId` fills, at `now`, if its next batch is still `nextBatch`; false otherwise. */
  complete(archive: JobArchiveRecord, serverId: string, now: number): Promise<boolean> {
    return this.claims.advance(
      archive._id,
      serverId,
      archive.nextRunAt ?? 0,
      { state: 'complete', completedAt: new Date(now).toISOString(), nextRunAt: null },
      { nextBatch: archive.nextBatch },
    );
  }
}
