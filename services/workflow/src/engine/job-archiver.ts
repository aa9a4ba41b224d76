import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createGzip } from 'node:zlib';
import type { ArchivableJobStatus } from '@nap/contracts';
import type { Logger } from '@nap/telemetry';
import { archivedMetricSums } from '../domain/archived-metrics';
import { ARCHIVE_PART_BYTES, archiveLine, batchId, countByStatus, familiesOf, newArchiveRecord } from '../domain/job-archive';
import type { ArchiveBatchRecord, ArchiveCursor, JobArchiveRecord, JobFamily } from '../domain/job-archive';
import type { JobRecord } from '../domain/job-model';
import type { ArchiveBatchRepository } from '../store/archive-batch-repository';
import type { ArchiveChunkRepository } from '../store/archive-chunk-repository';
import type { JobArchiveRepository } from '../store/job-archive-repository';
import type { JobRepository } from '../store/job-repository';
import { Ticker } from './ticker';

/** Jobs (child jobs included) a batch moves by default: what one batch holds in memory and in one round of store writes. */
export const DEFAULT_ARCHIVE_BATCH_JOBS = 200;

/** Jobs read back (values in place) at a time while a batch is written. */
const READ_SLICE = 25;

/** Settings of archiving, besides the engine's lease. */
export interface ArchiveOptions {
  /** Jobs (child jobs included) per batch; {@link DEFAULT_ARCHIVE_BATCH_JOBS} unless given. A family larger than this is one batch. */
  archiveBatchJobs?: number;
  /** How often the job retention runs, ms (due times are whole multiples of it since the epoch); a day unless given. */
  retentionIntervalMs?: number;
}

/** What the archiver works with. */
export interface JobArchiverParts {
  jobs: JobRepository;
  archives: JobArchiveRepository;
  batches: ArchiveBatchRepository;
  chunks: ArchiveChunkRepository;
  serverId: string;
  /** A claim not renewed for `leaseMs` passes to another replica; the store is asked for waiting archives every `tickMs`. */
  timing: { leaseMs: number; tickMs: number };
  batchJobs: number;
  log: Logger;
}

/** How far one batch went. */
type BatchOutcome = 'next' | 'complete' | 'stop';

/** Renews a claim in the background while its holder works, and tells the holder when it was lost. */
class ClaimKeeper {
  private lostIt = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly renew: () => Promise<boolean>,
    everyMs: number,
    private readonly log: Logger,
  ) {
    this.timer = setInterval(() => void this.confirm(), everyMs);
    this.timer.unref();
  }

  get lost(): boolean {
    return this.lostIt;
  }

  /** Renews the claim now: true while it is still this replica's. */
  async confirm(): Promise<boolean> {
    if (this.lostIt) return false;
    try {
      if (!(await this.renew())) this.lostIt = true;
    } catch (err) {
      // the store is away: the next write fails too, and the claim lapses to whoever reaches the store
      this.log.warn({ err }, 'Renewing the claim on an archive failed');
    }
    return !this.lostIt;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/**
 * Fills job archives, on every replica: each tick it looks for running archives that nobody fills
 * (new ones, or those whose filler's claim lapsed: it died) and claims one, as schedules are claimed
 * ({@link JobArchiveRepository} over the shared due-time claims). The holder renews its claim while
 * it works and moves jobs batch by batch; each batch goes through phases stored before the next
 * begins, each phase safe to do again:
 * - planned: root jobs that ended before the cut-off, in end-time order from where the last batch
 *   stopped, each with every job below it (a family is archived whole or not at all, and not while
 *   one of its jobs runs, is paused, has events to publish or is held by an engine);
 * - marked: the batch's mark set on those jobs in one update (a marked job no longer changes: its
 *   tasks cannot be retried), families not marked whole unmarked;
 * - written: the members, values in place and in id order, as gzip-compressed lines in parts of
 *   512 KiB (`job_archive_chunks`, keyed by batch and part: written again, they replace themselves),
 *   and the members' metric sums kept with the batch;
 * - done: the members (and their large values) removed from the store; the archive counts the batch
 *   and moves on, once.
 * A replica that takes a lapsed claim over resumes the batch from the phase it finds: no job is
 * lost (it leaves the store only once written) or archived twice (a job is marked for one batch).
 */
export class JobArchiver {
  private readonly ticker: Ticker;

  constructor(private readonly parts: JobArchiverParts) {
    this.ticker = new Ticker({
      everyMs: parts.timing.tickMs,
      work: () => this.fillWaiting(),
      onError: (err) => parts.log.warn({ err }, 'Filling job archives failed; it is tried again'),
    });
  }

  start(): void {
    this.ticker.start();
  }

  /** Stops after the phase under way; the archive being filled is released for another replica. */
  stop(): Promise<void> {
    return this.ticker.stop();
  }

  /** A new archive of root jobs in `statuses` that ended before `before`, filled from now on (by this replica if it can). */
  async request(input: { before: number; statuses: ArchivableJobStatus[]; requestedBy: string }): Promise<JobArchiveRecord> {
    const record = newArchiveRecord({ id: randomUUID(), origin: 'request', now: Date.now(), ...input });
    await this.parts.archives.insert(record);
    this.wake();
    return record;
  }

  /** Looks for archives to fill now rather than at the next tick. */
  wake(): void {
    this.ticker.wake();
  }

  /** One look for archives to fill (ticks do not overlap). */
  tick(): Promise<void> {
    return this.ticker.tick();
  }

  private async fillWaiting(): Promise<void> {
    const { archives, serverId, timing } = this.parts;
    const now = Date.now();
    for (const id of await archives.waiting(serverId, now, now - timing.leaseMs)) {
      if (this.ticker.stopped) return;
      const claimed = await archives.claim(id, serverId, Date.now(), timing.leaseMs);
      if (claimed !== null) await this.fill(claimed);
    }
  }

  /** Fills an archive this replica claimed, batch by batch, until it is complete, the claim is lost or the replica stops. */
  private async fill(claimed: JobArchiveRecord): Promise<void> {
    const { archives, serverId, timing, log } = this.parts;
    const keeper = new ClaimKeeper(
      () => archives.renew(claimed._id, serverId, Date.now()),
      Math.max(10, Math.floor(timing.leaseMs / 3)),
      log,
    );
    let outcome: BatchOutcome = 'next';
    try {
      let archive: JobArchiveRecord | null = claimed;
      while (outcome === 'next' && archive !== null && archive.state === 'running') {
        outcome = await this.batch(archive, keeper);
        archive = await archives.find(claimed._id);
      }
    } finally {
      keeper.stop();
      // a replica that stops hands the archive on at once rather than after its claim lapses
      if (outcome !== 'complete' && !keeper.lost) await archives.release(claimed._id, serverId).catch(() => undefined);
    }
  }

  /** Carries the archive's next batch through its phases from where it stands. */
  private async batch(archive: JobArchiveRecord, keeper: ClaimKeeper): Promise<BatchOutcome> {
    const { archives, batches, serverId, log } = this.parts;
    const id = batchId(archive._id, archive.nextBatch);
    let batch = await batches.find(id);
    if (batch === null) {
      const plan = await this.plan(archive);
      if (!(await keeper.confirm())) return 'stop';
      if (plan === null) {
        if (!(await archives.complete(archive, serverId, Date.now()))) return 'stop';
        log.info({ archive: archive._id, batches: archive.nextBatch, jobs: archive.jobs, bytes: archive.bytes }, 'Job archive complete');
        return 'complete';
      }
      batch = await batches.plan({ _id: id, archive: archive._id, seq: archive.nextBatch, phase: 'planned', ...plan });
    }
    for (;;) {
      if (batch === null) return 'stop';
      if (batch.phase === 'done') break;
      if (this.ticker.stopped || !(await keeper.confirm())) return 'stop';
      if (batch.phase === 'planned') batch = await this.mark(batch);
      else if (batch.phase === 'marked') batch = await this.write(batch);
      else batch = await this.remove(batch);
    }
    await archives.batchDone(batch);
    log.info(
      { archive: archive._id, batch: batch.seq, jobs: batch.members?.length ?? 0, roots: batch.roots ?? 0, bytes: batch.bytes ?? 0 },
      'Archived a batch of jobs',
    );
    return 'next';
  }

  /**
   * The families of the next batch: root jobs that ended before the cut-off, after the archive's
   * cursor, with the jobs below them, until the batch holds `batchJobs` jobs or more (a family is
   * never split). Families that may not leave now are passed over (a later archive takes them). Null
   * when no family is left.
   */
  private async plan(archive: JobArchiveRecord): Promise<{ families: JobFamily[]; cursorAfter: ArchiveCursor } | null> {
    const { jobs, batchJobs } = this.parts;
    const families: JobFamily[] = [];
    let cursor = archive.cursor;
    let count = 0;
    while (count < batchJobs) {
      const roots = await jobs.archiveCandidates(archive.before, archive.statuses, cursor, batchJobs);
      if (roots.length === 0) break;
      const found = familiesOf(roots, await jobs.descendantsOf(roots.map((r) => r._id)));
      for (const root of roots) {
        cursor = { endTime: root.endTime, id: root._id };
        const family = found.get(root._id);
        if (family?.archivable === true) {
          families.push({ root: family.root, ids: family.ids });
          count += family.ids.length;
        }
        if (count >= batchJobs) break;
      }
    }
    return families.length === 0 || cursor === null ? null : { families, cursorAfter: cursor };
  }

  /** planned → marked: freezes the batch's jobs and keeps whole families. */
  private async mark(batch: ArchiveBatchRecord): Promise<ArchiveBatchRecord | null> {
    const { jobs, batches } = this.parts;
    const marks = await jobs.markForArchive(
      batch.families.flatMap((f) => f.ids),
      batch._id,
    );
    const members: string[] = [];
    const partial: string[] = [];
    let roots = 0;
    for (const family of batch.families) {
      if (family.ids.every((id) => marks.get(id) === batch._id)) {
        members.push(...family.ids);
        roots += 1;
      } else partial.push(...family.ids);
    }
    await jobs.unmarkArchive(partial, batch._id);
    members.sort();
    return batches.advance(batch._id, 'planned', 'marked', { members, roots });
  }

  /**
   * marked → written: the members as compressed lines, stored in parts as the compressor makes them,
   * and what they add to the job and task metrics (kept with the batch: they count once removed).
   */
  private async write(batch: ArchiveBatchRecord): Promise<ArchiveBatchRecord | null> {
    const { jobs, batches, chunks, log } = this.parts;
    const members = batch.members ?? [];
    const sums = new Map<string, Pick<JobRecord, 'name' | 'status' | 'metrics' | 'tasks' | 'groups' | 'runAs'>>();
    const gzip = createGzip();
    let part = 0;
    let bytes = 0;
    const store = async (data: Uint8Array): Promise<void> => {
      await chunks.put(batch.archive, batch._id, part, data);
      part += 1;
      bytes += data.byteLength;
    };
    const produce = async (): Promise<void> => {
      try {
        for (let i = 0; i < members.length; i += READ_SLICE) {
          const slice = members.slice(i, i + READ_SLICE);
          const found = new Map((await jobs.findByIds(slice)).map((job) => [job._id, job]));
          for (const id of slice) {
            const job = found.get(id);
            if (job === undefined) {
              log.error({ batch: batch._id, jobId: id }, 'A job of an archive batch is no longer in the store; it is not in the archive');
              continue;
            }
            const { name, status, metrics, tasks, groups, runAs } = job;
            sums.set(id, { name, status, metrics, tasks, groups, runAs });
            if (!gzip.write(archiveLine(job))) await once(gzip, 'drain');
          }
        }
        gzip.end();
      } catch (err) {
        gzip.destroy(err instanceof Error ? err : new Error(String(err)));
        throw err;
      }
    };
    const consume = async (): Promise<void> => {
      let pending: Buffer[] = [];
      let size = 0;
      try {
        for await (const chunk of gzip as AsyncIterable<Buffer>) {
          pending.push(chunk);
          size += chunk.byteLength;
          while (size >= ARCHIVE_PART_BYTES) {
            const all = Buffer.concat(pending);
            await store(all.subarray(0, ARCHIVE_PART_BYTES));
            pending = [all.subarray(ARCHIVE_PART_BYTES)];
            size = all.byteLength - ARCHIVE_PART_BYTES;
          }
        }
        if (size > 0) await store(Buffer.concat(pending));
      } catch (err) {
        // the producer waiting for the compressor to drain is told too
        gzip.destroy(err instanceof Error ? err : new Error(String(err)));
        throw err;
      }
    };
    await Promise.all([produce(), consume()]);
    await chunks.dropFrom(batch._id, part);
    const counted = [...sums.values()];
    return batches.advance(batch._id, 'marked', 'written', {
      bytes,
      parts: part,
      sums: archivedMetricSums(counted),
      statusCounts: countByStatus(counted),
    });
  }

  /** written → done: the members leave the store. */
  private async remove(batch: ArchiveBatchRecord): Promise<ArchiveBatchRecord | null> {
    await this.parts.jobs.removeArchived(batch.members ?? [], batch._id);
    return this.parts.batches.advance(batch._id, 'written', 'done');
  }
}
