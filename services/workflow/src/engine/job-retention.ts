import { ARCHIVABLE_JOB_STATUSES } from '@nap/contracts';
import type { AuditRecorder } from '@nap/bus';
import type { Logger } from '@nap/telemetry';
import { newArchiveRecord, retentionArchiveId, retentionDueAt } from '../domain/job-archive';
import type { JobArchiveRecord } from '../domain/job-archive';
import type { JobArchiveRepository } from '../store/job-archive-repository';
import type { JobRepository } from '../store/job-repository';
import type { RetentionRepository } from '../store/retention-repository';
import type { JobArchiver } from './job-archiver';
import { Ticker } from './ticker';

const DAY_MS = 86_400_000;

/** How often the retention runs unless told otherwise: once a day (at 00:00 UTC). */
export const DEFAULT_RETENTION_INTERVAL_MS = DAY_MS;

/** What the retention works with. */
export interface JobRetentionParts {
  retention: RetentionRepository;
  jobs: JobRepository;
  archives: JobArchiveRepository;
  archiver: Pick<JobArchiver, 'wake'>;
  serverId: string;
  /** Claims lapse after `leaseMs`; the store is asked whether the retention is due every `tickMs`; due times every `intervalMs`. */
  timing: { leaseMs: number; tickMs: number; intervalMs: number };
  /** The active profile's job retention in days (a live setting); 0: jobs are kept. */
  retentionDays: () => number;
  /** Where the retention's archives are recorded as actions of the platform actor `retention`. */
  audit: AuditRecorder;
  log: Logger;
}

/**
 * The job retention: once per due time (every `intervalMs`, due times whole multiples of it since the
 * epoch, so alike on every replica), whatever the number of replicas, finished root jobs that ended
 * more than the active profile's retention days before the due time go into an archive. One replica
 * claims the due time ({@link RetentionRepository}, the claims schedules fire under), makes the
 * due time's archive (its id derived from the due time: a replica that takes a lapsed claim over
 * makes no second one) when there is anything to archive, and moves the due time on. The archive is
 * then filled in bounded batches by the {@link JobArchiver} of any replica, resumed after a crash.
 */
export class JobRetention {
  private readonly ticker: Ticker;

  constructor(private readonly parts: JobRetentionParts) {
    this.ticker = new Ticker({
      everyMs: parts.timing.tickMs,
      work: () => this.runDue(),
      onError: (err) => parts.log.warn({ err }, 'Running the job retention failed; it is tried again'),
    });
  }

  /** Creates the due time on the platform's first start (due at once: a store that grew before retention existed shrinks now). */
  async start(): Promise<void> {
    await this.parts.retention.ensure(Date.now());
    this.ticker.start();
  }

  stop(): Promise<void> {
    return this.ticker.stop();
  }

  /** One look at the retention's due time (ticks do not overlap). */
  tick(): Promise<void> {
    return this.ticker.tick();
  }

  private async runDue(): Promise<void> {
    const { retention, serverId, timing, log } = this.parts;
    const claimed = await retention.claimDue(serverId, Date.now(), timing.leaseMs);
    const due = claimed?.nextRunAt;
    if (due === null || due === undefined) return;
    let archive: string | null;
    try {
      archive = await this.archiveFor(due);
    } catch (err) {
      await retention.release(serverId);
      throw err;
    }
    const next = retentionDueAt(Date.now(), timing.intervalMs) + timing.intervalMs;
    if (await retention.advance(serverId, due, next, archive))
      log.info({ due, archive, next }, archive === null ? 'Job retention ran: nothing to archive' : 'Job retention ran');
  }

  /** The archive of due time `due`, made when jobs are old enough; null when there are none (or the retention is 0 days). */
  private async archiveFor(due: number): Promise<string | null> {
    const { jobs, archives, archiver, log } = this.parts;
    const days = this.parts.retentionDays();
    if (days <= 0) return null;
    const id = retentionArchiveId(due);
    const existing = await archives.find(id);
    if (existing !== null) {
      // made by a replica that may have died before recording it: recorded again, kept once
      if (existing.origin === 'retention') await this.recordArchive(existing, days);
      return id;
    }
    // an earlier due time's archive still fills: this due time adds none beside it (the next one takes what it left)
    const filling = await archives.runningFromRetention();
    if (filling !== null) {
      log.info(
        { due, filling: filling._id },
        'Job retention: the archive of an earlier due time is still being filled; none is made for this one',
      );
      return null;
    }
    const before = due - days * DAY_MS;
    const statuses = [...ARCHIVABLE_JOB_STATUSES];
    if ((await jobs.archiveCandidates(before, statuses, null, 1)).length === 0) return null;
    const record = newArchiveRecord({ id, origin: 'retention', before, statuses, requestedBy: 'retention', now: Date.now(), due });
    await archives.insert(record);
    await this.recordArchive(record, days);
    archiver.wake();
    return id;
  }

  /** The audit record of a retention archive, once per archive (its id is the occasion). */
  private async recordArchive(record: JobArchiveRecord, days: number): Promise<void> {
    await this.parts.audit.recordPlatformAction({
      actor: 'retention',
      operation: 'workflow.archiveJobs',
      occasion: record._id,
      target: { kind: 'job-archive', id: record._id, name: `jobs ended before ${new Date(record.before).toISOString()} (${days} days)` },
    });
  }
}
