import { randomUUID } from 'node:crypto';
import type { AuditRecorder } from '@nap/bus';
import type { Logger } from '@nap/telemetry';
import type { AuditRecords } from '../store/audit-records';

/** Timing of the audit retention, ms. */
export interface AuditRetentionTiming {
  /** How often a replica looks whether records are due for removal. Defaults to one hour. */
  intervalMs?: number;
  /** Records removed per step (one anchor move, one delete). Defaults to 1 000. */
  batch?: number;
}

const DEFAULT_INTERVAL_MS = 3_600_000;
const DEFAULT_BATCH = 1_000;
/** How long a replica's claim on a run holds without being renewed. */
const CLAIM_MS = 600_000;

/**
 * Removes audit records older than the active profile's `auditProps.retentionDays` from the oldest
 * end of the chain, so that what is kept is still one unbroken chain: each step first moves the
 * anchor (the seq and hash the chain now starts from) to the last record it removes, then removes
 * them; a crash between the two leaves records that verification passes over and the next run
 * removes. One replica runs at a time (a claim in the store). Each run that removed records is
 * itself recorded (actor `retention`).
 */
export class AuditRetention {
  private readonly owner = randomUUID();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private readonly intervalMs: number;
  private readonly batch: number;
  /** When this replica's next run is due (epoch ms): moved on by each run that did not fail. */
  private due: number | undefined;

  constructor(
    private readonly records: AuditRecords,
    private readonly recorder: AuditRecorder,
    /** Days a record is kept, read at each run (the active profile's setting). */
    private readonly retentionDays: () => Promise<number>,
    private readonly log: Logger,
    timing: AuditRetentionTiming = {},
  ) {
    this.intervalMs = timing.intervalMs ?? DEFAULT_INTERVAL_MS;
    this.batch = timing.batch ?? DEFAULT_BATCH;
  }

  /** When this replica runs next, epoch ms; undefined before it started. A run that fails leaves it in the past. */
  get nextRunAt(): number | undefined {
    return this.due;
  }

  start(): void {
    this.due = Date.now() + this.intervalMs;
    this.timer = setInterval(() => void this.run(), this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  /** One run now (unless one is under way here): how many records it removed; 0 when another replica holds the run. */
  run(now = Date.now()): Promise<number> {
    this.running ??= this.removeDue(now)
      .then((removed) => {
        if (this.timer !== undefined) this.due = Date.now() + this.intervalMs;
        return removed;
      })
      .catch((err: unknown) => {
        this.log.warn({ err }, 'Audit retention failed; it runs again later');
        return 0;
      })
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  private async removeDue(now: number): Promise<number> {
    if (!(await this.records.claimRetention(this.owner, now, now + CLAIM_MS))) return 0;
    let removed = 0;
    let through = 0;
    try {
      const cutoff = new Date(now - (await this.retentionDays()) * 86_400_000).toISOString();
      for (;;) {
        const oldest = await this.records.oldest(this.batch);
        let last = -1;
        while (last + 1 < oldest.length && (oldest[last + 1]?.timestamp ?? '') < cutoff) last++;
        const lastDue = oldest[last];
        if (lastDue === undefined) break;
        await this.records.setAnchor({ seq: lastDue.seq, hash: lastDue.hash });
        removed += await this.records.removeThrough(lastDue.seq);
        through = lastDue.seq;
        if (last + 1 < oldest.length) break;
        await this.records.claimRetention(this.owner, Date.now(), Date.now() + CLAIM_MS);
      }
    } finally {
      await this.records.releaseRetention(this.owner).catch(() => undefined);
    }
    if (removed > 0) {
      this.log.info({ removed, through }, 'Audit retention removed old records');
      await this.recorder.recordPlatformAction({
        actor: 'retention',
        operation: 'admin.applyAuditRetention',
        occasion: `audit-through-${through}`,
        target: { kind: 'audit', id: String(through), name: `records up to seq ${through}` },
        changes: [{ member: 'removed', after: removed }],
      });
    }
    return removed;
  }
}
