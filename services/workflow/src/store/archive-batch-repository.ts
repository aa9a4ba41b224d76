import { hasCode } from '@nap/contracts';
import type { Collection, Store } from '@nap/store';
import { mergeArchivedMetricSums } from '../domain/archived-metrics';
import type { ArchivedMetricSums } from '../domain/archived-metrics';
import type { ArchiveBatchRecord, BatchPhase } from '../domain/job-archive';

/**
 * The `job_archive_batches` collection: one document per batch of an archive, its phase and what it
 * moves. A batch is created once (its id is the archive's and its number), then moves on phase by
 * phase with conditional updates, so that two replicas that both think they fill it (one of them a
 * holder whose claim lapsed) move it on once. Batches done keep the metric sums of their jobs: job
 * and task metrics add them, so archived jobs keep counting.
 */
export class ArchiveBatchRepository {
  private readonly batches: Collection<ArchiveBatchRecord>;
  /** The sums of {@link doneStatusCounts} as last read, and how many batches were done then. */
  private doneCounts: { batches: number; counts: Record<string, number> } | undefined;
  /** The sums of {@link doneSumsMerged} as last read, and how many batches were done then. */
  private doneMerged: { batches: number; sums: readonly ArchivedMetricSums[] } | undefined;

  constructor(store: Store) {
    this.batches = store.collection<ArchiveBatchRecord>('job_archive_batches');
  }

  find(id: string): Promise<ArchiveBatchRecord | null> {
    return this.batches.findOne({ _id: id });
  }

  /** Stores a planned batch; the batch as stored, which is another replica's when it planned the same batch first. */
  async plan(batch: ArchiveBatchRecord): Promise<ArchiveBatchRecord> {
    try {
      return await this.batches.insertOne(batch);
    } catch (err) {
      if (!hasCode(err, 'STORE_DUPLICATE_KEY')) throw err;
      const existing = await this.find(batch._id);
      if (existing === null) throw err;
      return existing;
    }
  }

  /** Moves a batch from phase `from` to `to` with `set`; the batch as stored afterwards (moved on by another replica when it was no longer in `from`). */
  async advance(id: string, from: BatchPhase, to: BatchPhase, set: Partial<ArchiveBatchRecord> = {}): Promise<ArchiveBatchRecord | null> {
    const moved = await this.batches.findOneAndUpdate(
      { _id: id, phase: from },
      { $set: { ...set, phase: to } },
      { returnDocument: 'after' },
    );
    return moved ?? this.find(id);
  }

  /**
   * Jobs archived by every batch done, by status (what each scrape of the job gauges adds). A batch
   * done stays done and is never removed, so the number of batches done says whether the sums
   * changed: they are read again only then, and a scrape costs a count of the phase index instead of
   * a read of every batch the archive history holds.
   */
  async doneStatusCounts(): Promise<Record<string, number>> {
    // counted before the read: a batch done in between is in the sums, and the next call reads again
    const done = await this.batches.countDocuments({ phase: 'done' });
    if (this.doneCounts?.batches !== done) this.doneCounts = { batches: done, counts: await this.readDoneStatusCounts() };
    return { ...this.doneCounts.counts };
  }

  private async readDoneStatusCounts(): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    let after = '';
    for (;;) {
      const page = await this.batches.find(
        { phase: 'done', _id: { $gt: after } },
        { sort: { _id: 1 }, limit: 1_000, projection: { _id: 1, statusCounts: 1 } },
      );
      for (const b of page) for (const [status, n] of Object.entries(b.statusCounts ?? {})) counts[status] = (counts[status] ?? 0) + n;
      const last = page[page.length - 1];
      if (page.length < 1_000 || last === undefined) return counts;
      after = last._id;
    }
  }

  /**
   * The metric sums of every batch done, added up per set of callers who may see them (groups,
   * initiator, owner): what job and task metrics add for archived jobs. Read again only when more
   * batches are done (see {@link doneStatusCounts}), so a metrics request costs a count of the phase
   * index and a few entries, not a read of every batch the archive history holds. The entries are
   * shared between callers: read them, never change them.
   */
  async doneSumsMerged(): Promise<readonly ArchivedMetricSums[]> {
    const done = await this.batches.countDocuments({ phase: 'done' });
    if (this.doneMerged?.batches !== done) {
      // page by page: what is kept is one entry per visibility, not one per batch
      let merged: ArchivedMetricSums[] = [];
      for await (const page of this.doneSums()) merged = mergeArchivedMetricSums([...merged, ...page]);
      this.doneMerged = { batches: done, sums: merged };
    }
    return this.doneMerged.sums;
  }

  /** The metric sums of every batch done (their jobs left the store), a page of `batch` batches at a time. */
  async *doneSums(batch = 200): AsyncGenerator<ArchivedMetricSums[]> {
    let after = '';
    for (;;) {
      const page = await this.batches.find(
        { phase: 'done', _id: { $gt: after } },
        { sort: { _id: 1 }, limit: batch, projection: { _id: 1, sums: 1 } },
      );
      if (page.length === 0) return;
      yield page.flatMap((b) => b.sums ?? []);
      const last = page[page.length - 1];
      if (page.length < batch || last === undefined) return;
      after = last._id;
    }
  }
}
