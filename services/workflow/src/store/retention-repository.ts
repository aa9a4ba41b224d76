import type { Collection, Store } from '@nap/store';
import { DueClaims } from './due-claims';
import type { DueClaim } from './due-claims';

/** The job retention's due time (one document). */
export type RetentionRecord = {
  _id: string;
  /** When the retention runs next (epoch ms). */
  nextRunAt: number | null;
  /** The replica running it now. */
  fire?: DueClaim;
  /** The last due time it ran for, and the archive it made then (none when nothing was old enough). */
  lastRunAt?: number;
  lastArchive?: string | null;
};

const JOBS = 'jobs';

/**
 * The `job_retention` collection: when the job retention runs next, claimed by one replica per
 * due time ({@link DueClaims}, as schedules fire).
 */
export class RetentionRepository {
  private readonly retention: Collection<RetentionRecord>;
  private readonly claims: DueClaims<RetentionRecord>;

  constructor(store: Store) {
    this.retention = store.collection<RetentionRecord>('job_retention');
    this.claims = new DueClaims(this.retention);
  }

  /** Creates the due time on the platform's first start (`firstRunAt`); leaves an existing one as it is. */
  async ensure(firstRunAt: number): Promise<void> {
    await this.retention.updateOne({ _id: JOBS }, { $setOnInsert: { nextRunAt: firstRunAt } }, { upsert: true });
  }

  find(): Promise<RetentionRecord | null> {
    return this.retention.findOne({ _id: JOBS });
  }

  /** The retention when it is due at `now` and this replica claimed it (its own claim of before a restart included); null otherwise. */
  async claimDue(serverId: string, now: number, leaseMs: number): Promise<RetentionRecord | null> {
    const due = await this.claims.due({}, now, now - leaseMs, 1, serverId);
    if (due.length === 0) return null;
    return this.claims.claim(JOBS, {}, serverId, now, leaseMs, true);
  }

  /** Moves the retention on from due time `from` to `next`, recording the archive made, and releases the claim. */
  advance(serverId: string, from: number, next: number, archive: string | null): Promise<boolean> {
    return this.claims.advance(JOBS, serverId, from, { nextRunAt: next, lastRunAt: from, lastArchive: archive });
  }

  release(serverId: string): Promise<void> {
    return this.claims.release(JOBS, serverId);
  }
}
