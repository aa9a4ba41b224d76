import { setImmediate as yieldToEvents } from 'node:timers/promises';
import type { Collection, Store } from '@nap/store';
import type { Logger } from '@nap/telemetry';
import { DueClaims } from './due-claims';
import type { DueClaim } from './due-claims';
import type { JobRepository } from './job-repository';

/** Where the sealing of the jobs stored before job sealing is (one document of `job_sealing`). */
export type JobSealingRecord = {
  _id: string;
  /** 0 while the pass has jobs left to look at (due at once); null once it went through them all. */
  nextRunAt: number | null;
  /** The replica doing it now. */
  fire?: DueClaim;
  /** The last job id it went past: where it goes on after a crash or restart. */
  after?: string;
  /** Jobs it sealed so far. */
  sealed?: number;
  /** When it went through them all (epoch ms). */
  completedAt?: number;
};

/** Jobs read at a time. */
export const DEFAULT_SEALING_BATCH_JOBS = 200;

const JOBS = 'jobs';

/** What the pass works with. */
export interface StoredJobSealingParts {
  store: Store;
  jobs: Pick<JobRepository, 'sealStoredBatch'>;
  serverId: string;
  /** A claim not renewed for `leaseMs` passes to another replica (the engine's lease). */
  leaseMs: number;
  /** Jobs read and sealed at a time ({@link DEFAULT_SEALING_BATCH_JOBS}). */
  batchJobs?: number;
  log: Logger;
}

/** How a go of the pass ended: went through every job, found it done before, another replica holds it, or stopped midway. */
export type StoredJobSealingOutcome = 'done' | 'complete' | 'busy' | 'stopped';

/**
 * Seals the secrets of the jobs an earlier release stored in clear (see `JobSealer.resealStored`),
 * once per store, in the background of the service's start: the finished jobs not held by an
 * archive, in id order, a batch at a time (each job written only while unchanged since it was read),
 * yielding between batches. Running jobs are left to their engines, whose writes seal them. Where it
 * is, and who does it, is kept in `job_sealing`: one replica claims it ({@link DueClaims}, as the job
 * retention runs) and renews the claim with the position after each batch; after a crash or a
 * restart it goes on from there (another replica once the claim lapsed), and once every job was
 * looked at a start reads one document and does nothing more. A failure is logged and tried again
 * at the next start.
 */
export class StoredJobSealing {
  private readonly state: Collection<JobSealingRecord>;
  private readonly claims: DueClaims<JobSealingRecord>;
  private readonly batchJobs: number;
  private running: Promise<void> | undefined;
  private stopped = false;
  private pause: { timer: NodeJS.Timeout; resolve: () => void } | undefined;

  constructor(private readonly parts: StoredJobSealingParts) {
    this.state = parts.store.collection<JobSealingRecord>('job_sealing');
    this.claims = new DueClaims(this.state);
    this.batchJobs = parts.batchJobs ?? DEFAULT_SEALING_BATCH_JOBS;
  }

  /** Starts the pass in the background (returns at once); while another replica holds it, looks again once its claim could lapse. */
  start(): void {
    if (this.running !== undefined) return;
    this.stopped = false;
    this.running = this.loop()
      .catch((err: unknown) =>
        this.parts.log.warn(
          { err },
          'Sealing the secrets of jobs stored by an earlier release failed; it is tried again at the next start',
        ),
      )
      .finally(() => {
        this.running = undefined;
      });
  }

  /** Stops after the job under way (the position is kept) and waits for it. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.pause !== undefined) {
      clearTimeout(this.pause.timer);
      this.pause.resolve();
    }
    await this.running;
  }

  private async loop(): Promise<void> {
    while ((await this.run()) === 'busy' && !this.stopped) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.parts.leaseMs);
        timer.unref();
        this.pause = { timer, resolve };
      });
      this.pause = undefined;
      if (this.stopped) return;
    }
  }

  /** One go: claims the pass, seals from its position on until every job was looked at (or it is stopped, or loses the claim). */
  async run(): Promise<StoredJobSealingOutcome> {
    const { serverId, leaseMs } = this.parts;
    const found = await this.state.findOne({ _id: JOBS });
    if (found !== null && found.nextRunAt === null) return 'complete';
    if (found === null) await this.state.updateOne({ _id: JOBS }, { $setOnInsert: { nextRunAt: 0 } }, { upsert: true });
    // a process restarted under the same id takes its own claim back at once (its former self is dead)
    const claimed = await this.claims.claim(JOBS, {}, serverId, Date.now(), leaseMs, true);
    if (claimed === null || claimed.nextRunAt === null || claimed.nextRunAt === undefined) return 'busy';
    const due = claimed.nextRunAt;
    const counts = { sealed: 0, unreadable: 0 };
    try {
      const outcome = await this.sealFrom(claimed, due, counts);
      if (outcome === 'stopped') await this.claims.release(JOBS, serverId);
      return outcome;
    } catch (err) {
      await this.claims.release(JOBS, serverId).catch(() => undefined);
      throw err;
    } finally {
      this.report(counts);
    }
  }

  private async sealFrom(
    claimed: JobSealingRecord,
    due: number,
    counts: { sealed: number; unreadable: number },
  ): Promise<StoredJobSealingOutcome> {
    const { jobs, serverId } = this.parts;
    const before = claimed.sealed ?? 0;
    let after = claimed.after;
    for (;;) {
      if (this.stopped) return 'stopped';
      const batch = await jobs.sealStoredBatch(after, this.batchJobs);
      counts.sealed += batch.sealed;
      counts.unreadable += batch.unreadable;
      if (batch.read < this.batchJobs || batch.last === undefined) break;
      after = batch.last;
      // the position, and the claim renewed with it: none when another replica took the claim over
      const kept = await this.state.updateOne(
        { _id: JOBS, 'fire.serverId': serverId },
        { $set: { after, sealed: before + counts.sealed, 'fire.claimTime': Date.now() } },
      );
      if (kept.matchedCount === 0) return 'busy';
      // paced: what else the process does goes first
      await yieldToEvents();
    }
    const sealed = before + counts.sealed;
    return (await this.claims.advance(JOBS, serverId, due, { nextRunAt: null, sealed, completedAt: Date.now() })) ? 'done' : 'busy';
  }

  private report(counts: { sealed: number; unreadable: number }): void {
    const { log } = this.parts;
    if (counts.sealed > 0) log.info({ jobs: counts.sealed }, 'Jobs stored by an earlier release got their secrets sealed');
    if (counts.unreadable > 0)
      log.warn(
        { jobs: counts.unreadable },
        'Jobs stored by an earlier release could not be read whole to seal their secrets; left as they are',
      );
  }
}
