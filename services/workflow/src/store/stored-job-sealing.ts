import { setImmediate as yieldToEvents } from 'node:timers/promises';
import type { Collection, Store } from '@nap/store';
import type { Logger } from '@nap/telemetry';
import { DueClaims } from './due-claims';
import type { DueClaim } from './due-claims';
import type { JobRepository } from './job-repository';

/** Where the sealing of the jobs stored before job sealing is (one document of `job_sealing`). */
export type JobSealingRecord = {
  _id: string;
  /**
   * 0 while the pass has jobs left to look at (due at once); once through them, while jobs it found
   * running or paused are still to be sealed, when it looks at them next (epoch ms); null once done.
   */
  nextRunAt: number | null;
  /** The replica doing it now. */
  fire?: DueClaim;
  /** The last job id it went past: where it goes on after a crash or restart. */
  after?: string;
  /** Jobs it sealed so far. */
  sealed?: number;
  /** When it went through every job (epoch ms); from then on it only waits for the jobs it found active. */
  passedAt?: number;
  /** When it went through them all and sealed every job it waited for (epoch ms). */
  completedAt?: number;
};

/**
 * A job the pass found running or paused (or changed between its read and its write), to seal once
 * it is finished: a document of `job_sealing` of its own (`waiting:<job id>`), so that the jobs
 * waited for are not bounded by one document and survive a restart.
 */
export type JobSealingWaiter = {
  _id: string;
  job: string;
  /** When the pass found it active (epoch ms). */
  since: number;
};

/** Jobs read at a time. */
export const DEFAULT_SEALING_BATCH_JOBS = 200;

/** How often the jobs the pass found active are looked at again, once it went through every job (ms). */
export const DEFAULT_SEALING_RECHECK_MS = 60_000;

const JOBS = 'jobs';
const WAITER = 'waiting:';
/** Past every id that starts with {@link WAITER} (`;` follows `:`). */
const AFTER_WAITERS = 'waiting;';

/** What the pass works with. */
export interface StoredJobSealingParts {
  store: Store;
  jobs: Pick<JobRepository, 'sealStoredBatch' | 'sealStoredJobs'>;
  serverId: string;
  /** A claim not renewed for `leaseMs` passes to another replica (the engine's lease). */
  leaseMs: number;
  /** Jobs read and sealed at a time ({@link DEFAULT_SEALING_BATCH_JOBS}). */
  batchJobs?: number;
  /** How often the jobs found active are looked at again, in ms ({@link DEFAULT_SEALING_RECHECK_MS}). */
  recheckMs?: number;
  log: Logger;
}

/**
 * How a go of the pass ended: sealed every job, found it done before, went through every job but
 * waits for some it found active (it looks again at `nextRunAt`), another replica holds it, or
 * stopped midway.
 */
export type StoredJobSealingOutcome = 'done' | 'complete' | 'waiting' | 'busy' | 'stopped';

type Counts = { sealed: number; unreadable: number };

/**
 * Seals the secrets of the jobs an earlier release stored in clear (see `JobSealer.resealStored`),
 * once per store, in the background of the service's start: the jobs not held by an archive, in id
 * order, a batch at a time (each job written only while unchanged since it was read), yielding
 * between batches. A job running or paused when the pass reads it is its engine's, which writes
 * only what a step changes (what it stored in clear before stays so): the pass notes it
 * ({@link JobSealingWaiter}, as a job changed between its read and its write) and, once through
 * every job, looks at the jobs it noted every `recheckMs` and seals each once it is finished, until
 * none is left (one that never finishes keeps only itself waiting). Where it is, and who does it, is
 * kept in `job_sealing`: one replica claims it ({@link DueClaims}, as the job retention runs) and
 * renews the claim with the position after each batch; after a crash or a restart it goes on from
 * there (another replica once the claim lapsed), and once every job was sealed a start reads one
 * document and does nothing more. A failure is logged and tried again at the next start.
 */
export class StoredJobSealing {
  private readonly state: Collection<JobSealingRecord>;
  private readonly waiters: Collection<JobSealingWaiter>;
  private readonly claims: DueClaims<JobSealingRecord>;
  private readonly batchJobs: number;
  private readonly recheckMs: number;
  private running: Promise<void> | undefined;
  private stopped = false;
  private pause: { timer: NodeJS.Timeout; resolve: () => void } | undefined;
  /** When the last go that ended `waiting` has the pass look again (epoch ms). */
  private nextLookAt = 0;

  constructor(private readonly parts: StoredJobSealingParts) {
    this.state = parts.store.collection<JobSealingRecord>('job_sealing');
    this.waiters = parts.store.collection<JobSealingWaiter>('job_sealing');
    this.claims = new DueClaims(this.state);
    this.batchJobs = parts.batchJobs ?? DEFAULT_SEALING_BATCH_JOBS;
    this.recheckMs = parts.recheckMs ?? DEFAULT_SEALING_RECHECK_MS;
  }

  /**
   * Starts the pass in the background (returns at once); while another replica holds it, looks
   * again once its claim could lapse, and while jobs it found active are left, when they are due.
   */
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
    for (;;) {
      const outcome = await this.run();
      if (this.stopped || (outcome !== 'busy' && outcome !== 'waiting')) return;
      const delayMs = outcome === 'busy' ? this.parts.leaseMs : Math.max(this.nextLookAt - Date.now(), 0);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delayMs);
        timer.unref();
        this.pause = { timer, resolve };
      });
      this.pause = undefined;
      if (this.stopped) return;
    }
  }

  /**
   * One go: claims the pass, seals from its position on until every job was looked at (or it is
   * stopped, or loses the claim), then the jobs it waits for that finished since.
   */
  async run(): Promise<StoredJobSealingOutcome> {
    const { serverId, leaseMs } = this.parts;
    const found = await this.state.findOne({ _id: JOBS });
    const nextRunAt = found === null ? 0 : found.nextRunAt;
    if (nextRunAt === null) return 'complete';
    const now = Date.now();
    if (nextRunAt > now) {
      // another replica looked at the jobs waited for: the next look is due then
      this.nextLookAt = nextRunAt;
      return 'waiting';
    }
    if (found === null) await this.state.updateOne({ _id: JOBS }, { $setOnInsert: { nextRunAt: 0 } }, { upsert: true });
    // a process restarted under the same id takes its own claim back at once (its former self is dead)
    const claimed = await this.claims.claim(JOBS, {}, serverId, now, leaseMs, true);
    if (claimed === null || claimed.nextRunAt === null || claimed.nextRunAt === undefined) return 'busy';
    const due = claimed.nextRunAt;
    const counts: Counts = { sealed: 0, unreadable: 0 };
    try {
      let outcome = claimed.passedAt === undefined ? await this.sealFrom(claimed, counts) : 'passed';
      if (outcome === 'passed') outcome = await this.sealWaiting(claimed.sealed ?? 0, due, counts);
      if (outcome === 'stopped') await this.claims.release(JOBS, serverId);
      return outcome;
    } catch (err) {
      await this.claims.release(JOBS, serverId).catch(() => undefined);
      throw err;
    } finally {
      this.report(counts);
    }
  }

  /** The pass through every job, from its position on; `passed` once through them all. */
  private async sealFrom(claimed: JobSealingRecord, counts: Counts): Promise<StoredJobSealingOutcome | 'passed'> {
    const { jobs, serverId } = this.parts;
    const before = claimed.sealed ?? 0;
    let after = claimed.after;
    for (;;) {
      if (this.stopped) return 'stopped';
      const batch = await jobs.sealStoredBatch(after, this.batchJobs);
      counts.sealed += batch.sealed;
      counts.unreadable += batch.unreadable;
      // noted before the position moves past them: a crash in between notes them again
      await this.wait(batch.waiting);
      const through = batch.read < this.batchJobs || batch.last === undefined;
      if (!through) after = batch.last;
      // the position, and the claim renewed with it: none when another replica took the claim over
      const kept = await this.state.updateOne(
        { _id: JOBS, 'fire.serverId': serverId },
        {
          $set: {
            sealed: before + counts.sealed,
            'fire.claimTime': Date.now(),
            ...(after === undefined ? {} : { after }),
            ...(through ? { passedAt: Date.now() } : {}),
          },
        },
      );
      if (kept.matchedCount === 0) return 'busy';
      if (through) return 'passed';
      // paced: what else the process does goes first
      await yieldToEvents();
    }
  }

  /** Notes the jobs of `ids` as waited for (again: each is one document, written once). */
  private async wait(ids: string[]): Promise<void> {
    const since = Date.now();
    for (const id of ids) await this.waiters.updateOne({ _id: WAITER + id }, { $setOnInsert: { job: id, since } }, { upsert: true });
  }

  /**
   * The jobs waited for, a batch at a time: each finished one sealed and let go, as each archived or
   * gone; `done` when none is left, else `waiting` until `recheckMs` from now.
   */
  private async sealWaiting(before: number, due: number, counts: Counts): Promise<StoredJobSealingOutcome> {
    const { jobs, serverId } = this.parts;
    let after = WAITER;
    let left = 0;
    for (;;) {
      if (this.stopped) return 'stopped';
      const page = await this.waiters.find({ _id: { $gt: after, $lt: AFTER_WAITERS } }, { sort: { _id: 1 }, limit: this.batchJobs });
      if (page.length === 0) break;
      after = page[page.length - 1]?._id ?? after;
      const outcome = await jobs.sealStoredJobs(page.map((waiter) => waiter.job));
      counts.sealed += outcome.sealed;
      counts.unreadable += outcome.unreadable;
      const still = new Set(outcome.waiting);
      const settled = page.filter((waiter) => !still.has(waiter.job)).map((waiter) => waiter._id);
      left += page.length - settled.length;
      // sealed first, let go after: a crash in between looks at them once more
      if (settled.length > 0) await this.waiters.deleteMany({ _id: { $in: settled } });
      const kept = await this.state.updateOne(
        { _id: JOBS, 'fire.serverId': serverId },
        { $set: { sealed: before + counts.sealed, 'fire.claimTime': Date.now() } },
      );
      if (kept.matchedCount === 0) return 'busy';
      if (page.length < this.batchJobs) break;
      await yieldToEvents();
    }
    const sealed = before + counts.sealed;
    const now = Date.now();
    if (left > 0) {
      this.nextLookAt = now + this.recheckMs;
      return (await this.claims.advance(JOBS, serverId, due, { nextRunAt: this.nextLookAt, sealed })) ? 'waiting' : 'busy';
    }
    return (await this.claims.advance(JOBS, serverId, due, { nextRunAt: null, sealed, completedAt: now })) ? 'done' : 'busy';
  }

  private report(counts: Counts): void {
    const { log } = this.parts;
    if (counts.sealed > 0) log.info({ jobs: counts.sealed }, 'Jobs stored by an earlier release got their secrets sealed');
    if (counts.unreadable > 0)
      log.warn(
        { jobs: counts.unreadable },
        'Jobs stored by an earlier release could not be read whole to seal their secrets; left as they are',
      );
  }
}
