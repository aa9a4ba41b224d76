import type { Logger } from '@nap/telemetry';
import type { JobRecord } from '../domain/job-model';
import type { JobRepository } from '../store/job-repository';

/** Jobs looked at per scan at most. */
const SCAN_LIMIT = 500;

/** Lease timing of an engine, in milliseconds. */
export interface LeaseTiming {
  /** A job whose owner has not renewed its claim for this long may be claimed by another engine. */
  leaseMs: number;
  /** How often the claims of this engine's jobs are renewed. */
  renewMs: number;
  /** How often the store is searched for jobs without a live owner. */
  scanMs: number;
}

/** The runners of an engine, as the lease manager sees them. */
export interface JobOwner {
  /** True when this engine drives the job now. */
  owns(jobId: string): boolean;
  /** How many jobs this engine drives. */
  readonly ownedJobs: number;
  /** Starts driving a job this engine has just claimed. */
  adopt(job: JobRecord, resumed: boolean): void;
  /** False while the job worker is deactivated: no job is claimed. */
  readonly claimsJobs: boolean;
}

/**
 * The claims of one engine (`metrics.server_id`, `metrics.claim_time`): it renews those of its jobs
 * every `renewMs`, looks every `scanMs` for active jobs whose claim expired (`leaseMs`) and claims
 * and resumes them, and hands its jobs back when it stops so that another engine resumes them at once.
 */
export class LeaseManager {
  private timers: NodeJS.Timeout[] = [];
  private stopped = false;

  constructor(
    private readonly serverId: string,
    private readonly timing: LeaseTiming,
    private readonly repository: JobRepository,
    private readonly owner: JobOwner,
    private readonly log: Logger,
  ) {}

  /** Claims the jobs without a live owner now, then renews and scans on timers. */
  async start(): Promise<void> {
    this.stopped = false;
    await this.scan();
    this.timers.push(
      setInterval(() => {
        this.renew().catch((err: unknown) => this.log.warn({ err }, 'Renewing job claims failed'));
      }, this.timing.renewMs),
      setInterval(() => {
        this.scan().catch((err: unknown) => this.log.warn({ err }, 'Looking for jobs to resume failed'));
      }, this.timing.scanMs),
    );
    for (const t of this.timers) t.unref();
  }

  /** Stops the timers; claims nothing more. */
  stopTimers(): void {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
  }

  /** Hands this engine's active jobs back (claim time cleared) so that another engine resumes them at once. */
  async handBack(): Promise<void> {
    await this.repository.handBackClaims(this.serverId);
  }

  private async renew(): Promise<void> {
    if (this.owner.ownedJobs === 0) return;
    await this.repository.renewClaims(this.serverId, Date.now());
  }

  /** Claims every active job whose lease expired (or that names this engine) and resumes it. */
  async scan(): Promise<void> {
    if (this.stopped || !this.owner.claimsJobs) return;
    const candidates = await this.repository.claimableIds(this.serverId, Date.now() - this.timing.leaseMs, SCAN_LIMIT);
    for (const jobId of candidates) {
      if (!this.owner.owns(jobId)) await this.tryAdopt(jobId);
    }
  }

  /** Claims a job when its lease expired (or it is this engine's) and resumes it here; true when this engine owns it now. */
  async tryAdopt(jobId: string): Promise<boolean> {
    if (this.owner.owns(jobId)) return true;
    if (this.stopped || !this.owner.claimsJobs) return false;
    const claimed = await this.repository.claim(jobId, this.serverId, Date.now(), this.timing.leaseMs);
    if (claimed === null || this.owner.owns(jobId)) return this.owner.owns(jobId);
    this.log.info({ jobId }, 'Resuming job');
    this.owner.adopt(claimed, true);
    return true;
  }
}
