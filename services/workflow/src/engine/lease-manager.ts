import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { failureStreak } from '@nap/telemetry';
import type { Logger } from '@nap/telemetry';
import { sleep } from '@nap/util';
import { isActiveStatus, WAITING_LEASE } from '../domain/job-model';
import { processAlive } from '../store/engine-registry';
import type { EngineRecord, EngineRegistry } from '../store/engine-registry';
import type { JobRepository } from '../store/job-repository';
import type { JobEventRelay } from './job-events';
import type { OwnedJobs } from './owned-jobs';
import type { WorkerSwitches } from './worker-switches';

/** Jobs looked at per engine and scan at most. */
const SCAN_LIMIT = 500;
/** Every this many scans, also look for lease holders without an engine document and for own jobs not driven here. */
const FULL_SCAN_EVERY = 10;

/** Lease timing of an engine, in milliseconds. */
export interface LeaseTiming {
  /** An engine whose heartbeat has not moved for this long is dead: others take its jobs over. */
  leaseMs: number;
  /** How often the engine's heartbeat is renewed (one small write, however many jobs it drives). */
  renewMs: number;
  /** How often the engine looks at the others' heartbeats. */
  scanMs: number;
}

/**
 * The time and the timers the lease manager decides by ({@link REAL_CLOCK} unless given): its
 * renewals and scans run on it, and whether another engine is alive or dead is measured on it (the
 * times written to the store, for people, stay the process's). A test passes a clock that it moves
 * on itself, so that a loaded machine running the timers late cannot make a live engine look dead.
 */
export interface LeaseClock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Runs `work` every `everyMs` (the timer does not keep the process alive) until the function answered is called. */
  every(everyMs: number, work: () => Promise<void>): () => void;
  /** Resolves after `ms`. */
  sleep(ms: number): Promise<void>;
}

/** The clock of the process: `Date.now()`, `setInterval` and `sleep`. */
export const REAL_CLOCK: LeaseClock = {
  now: () => Date.now(),
  every(everyMs, work) {
    const timer = setInterval(() => void work(), everyMs);
    timer.unref();
    return () => clearInterval(timer);
  },
  sleep: (ms) => sleep(ms),
};

/** What the lease manager works with besides the store (parts the engine builds beside it). */
export interface LeaseParts {
  /** The jobs driven here: a job whose lease this engine takes is adopted there. */
  owned: Pick<OwnedJobs, 'owns' | 'adopt' | 'haltAll'>;
  /** Publishes what the outbox of a job taken over holds. */
  events: Pick<JobEventRelay, 'drain' | 'stop'>;
  /** While the job worker is deactivated no job is taken over or claimed from the waiting ones. */
  workers: Pick<WorkerSwitches, 'claimsJobs'>;
}

/**
 * The leases of one engine. The engine writes a heartbeat (`engines` collection) every `renewMs`;
 * each job with work for an engine names it in `lease`. Every `scanMs` an engine reads the others'
 * heartbeats; one whose heartbeat has not moved for `leaseMs` (as this engine's own clock measures
 * it, so clocks need not agree) or that stopped cleanly is dead, and its jobs are taken over: the
 * lease moves atomically to this engine (so two survivors never both take a job), active jobs are
 * resumed, and events left in an outbox are published. An engine that starts under the id of a
 * previous process (standalone keeps its id in the data directory) resumes that process's jobs at once.
 */
export class LeaseManager {
  private timers: (() => void)[] = [];
  private stopped = false;
  private scans = 0;
  private readonly record: EngineRecord;
  /** What this engine last saw of each other engine's heartbeat, and since when (its own clock). */
  private readonly seen = new Map<string, { mark: string; since: number }>();
  private readonly owned: LeaseParts['owned'];
  private readonly events: LeaseParts['events'];
  private readonly workers: LeaseParts['workers'];

  constructor(
    private readonly serverId: string,
    private readonly timing: LeaseTiming,
    private readonly jobs: JobRepository,
    private readonly registry: EngineRegistry,
    parts: LeaseParts,
    private readonly log: Logger,
    private readonly clock: LeaseClock = REAL_CLOCK,
  ) {
    this.owned = parts.owned;
    this.events = parts.events;
    this.workers = parts.workers;
    const now = Date.now();
    this.record = {
      _id: serverId,
      instance: randomUUID(),
      beat: 0,
      at: now,
      started: now,
      host: hostname(),
      pid: process.pid,
      leaseMs: timing.leaseMs,
    };
  }

  /** Registers this engine, resumes the jobs it holds (a restart) and those of dead engines, then renews and scans on timers. */
  async start(): Promise<void> {
    this.stopped = false;
    await this.ensureIdentityFree();
    await this.registry.register({ ...this.record, at: Date.now() });
    await this.jobs.leaseUnleased(SCAN_LIMIT);
    await this.scan(true);
    // a store that refuses writes (a full disk) or cannot be reached is said once, not every second
    const renewing = failureStreak(this.log, 'Renewing the engine heartbeat');
    const scanning = failureStreak(this.log, 'Looking for jobs of dead engines');
    this.timers.push(
      this.clock.every(this.timing.renewMs, () =>
        this.renew().then(renewing.worked, (err: unknown) => {
          this.forgetHeartbeats();
          renewing.failed(err);
        }),
      ),
      this.clock.every(this.timing.scanMs, () =>
        this.scan().then(scanning.worked, (err: unknown) => {
          this.forgetHeartbeats();
          scanning.failed(err);
        }),
      ),
    );
  }

  /** Stops the timers; takes nothing more over. */
  stopTimers(): void {
    this.stopped = true;
    for (const stop of this.timers) stop();
    this.timers = [];
  }

  /** Says this engine stopped, so that another engine takes its jobs over at its next scan. */
  async handBack(): Promise<void> {
    try {
      await this.registry.markStopped(this.serverId, this.record.instance, Date.now());
    } catch (err) {
      // the store refuses the write (a full disk) or is gone: the heartbeat stops moving, which says the same after a lease
      this.log.warn(
        { err, leaseMs: this.timing.leaseMs },
        'The engine could not record that it stopped; other engines take its jobs over when its lease ends',
      );
    }
  }

  /**
   * Forgets what this engine saw of the others' heartbeats, when its own store calls fail: the
   * others most likely could not beat either (a MongoDB election, a store that refuses writes), so
   * the time this engine could not look says nothing of them. Each of them is dead again only once
   * its heartbeat has not moved for a whole lease after the store answers this engine again;
   * otherwise every engine would take the others' jobs over (and run their tasks in flight again)
   * after any outage longer than the lease.
   */
  private forgetHeartbeats(): void {
    this.seen.clear();
  }

  /** True when engine `id` is dead to this engine: stopped, or its heartbeat has not moved for `leaseMs`. */
  private isDead(id: string, mark: string, now: number): boolean {
    const last = this.seen.get(id);
    if (last === undefined || last.mark !== mark) {
      this.seen.set(id, { mark, since: now });
      return false;
    }
    return now - last.since >= this.timing.leaseMs;
  }

  /**
   * Refuses to start under an id that a live process uses: the previous holder stopped, is a
   * process of this host that no longer runs, or its heartbeat does not move for two renewals.
   */
  private async ensureIdentityFree(): Promise<void> {
    const previous = await this.registry.find(this.serverId);
    if (previous === null || previous.stopped === true || previous.instance === this.record.instance) return;
    if (previous.host === this.record.host && previous.pid !== process.pid && !processAlive(previous.pid)) return;
    const watchMs = 2 * this.timing.renewMs + 50;
    this.log.info(
      { serverId: this.serverId, pid: previous.pid, host: previous.host, watchMs },
      'The engine id was in use by a process that may still run; watching its heartbeat',
    );
    const deadline = this.clock.now() + watchMs;
    while (this.clock.now() < deadline) {
      await this.clock.sleep(Math.max(10, Math.floor(this.timing.renewMs / 2)));
      const now = await this.registry.find(this.serverId);
      if (now === null || now.stopped === true) return;
      if (now.beat !== previous.beat || now.instance !== previous.instance) {
        throw new Error(
          `The workflow engine id "${this.serverId}" is in use by a running process (pid ${now.pid} on ${now.host}); ` +
            'give every engine process its own NAP_WORKFLOW_SERVER_ID (standalone: its own NAP_DATA_DIR)',
        );
      }
    }
  }

  private async renew(): Promise<void> {
    if (this.stopped) return;
    const outcome = await this.registry.beat(this.record, Date.now());
    if (outcome === 'taken') {
      this.log.error({ serverId: this.serverId }, 'Another process registered this engine id: this engine stops driving its jobs');
      this.stopTimers();
      // another process drives these jobs now: stop at once, leaving the store to it
      void this.owned.haltAll();
      this.events.stop();
    } else if (outcome === 'registered') {
      this.log.warn({ serverId: this.serverId }, 'The engine heartbeat had been removed as dead; registered again');
    }
  }

  /**
   * Takes over the jobs of dead engines; with `full` (at start and every {@link FULL_SCAN_EVERY}
   * scans) also those of lease holders without an engine document, and resumes this engine's own
   * jobs that no runner drives here (a restart under the same id).
   */
  async scan(full = false): Promise<void> {
    if (this.stopped || !this.workers.claimsJobs) return;
    this.scans += 1;
    const thorough = full || this.scans % FULL_SCAN_EVERY === 0;
    const now = this.clock.now();
    const engines = await this.registry.all();
    const dead: { id: string; beat?: number }[] = [];
    const known = new Set<string>([this.serverId]);
    for (const engine of engines) {
      known.add(engine._id);
      if (engine._id === this.serverId) continue;
      if (engine.stopped === true || this.isDead(engine._id, `${engine.instance}:${engine.beat}`, now))
        dead.push({ id: engine._id, beat: engine.beat });
    }
    if (thorough) {
      for (const holder of await this.jobs.leaseHolders(SCAN_LIMIT * 4)) {
        if (!known.has(holder) && holder !== WAITING_LEASE && this.isDead(holder, 'none', now)) dead.push({ id: holder });
      }
    }
    // jobs stored while the job worker was deactivated wait for the first engine that claims jobs
    let taken = await this.takeAll(WAITING_LEASE);
    if (taken > 0) this.log.info({ jobs: taken }, 'Claiming jobs stored while the job worker was deactivated');
    for (const { id, beat } of dead) {
      if (this.stopped) return;
      const moved = await this.takeAll(id);
      if (moved > 0) this.log.info({ from: id, jobs: moved }, 'Taking over the jobs of a dead engine');
      taken += moved;
      if (moved === 0) {
        await this.registry.removeDead(id, beat);
        this.seen.delete(id);
      }
    }
    if (taken > 0 || thorough) await this.resumeOwn();
  }

  /** Jobs leased to this engine: active ones without a runner here are resumed, events left in the outboxes of the others published. */
  private async resumeOwn(): Promise<void> {
    const held = (await this.jobs.leasedTo(this.serverId, SCAN_LIMIT)).filter((job) => !this.owned.owns(job._id));
    const active = held.filter((job) => isActiveStatus(job.status)).map((job) => job._id);
    for (const job of active.length > 0 ? await this.jobs.findByIds(active) : []) {
      if (this.stopped) return;
      // the lease is this engine's already (taken over, or held before a restart): no write needed to drive it
      if (
        this.owned.owns(job._id) ||
        job.lease !== this.serverId ||
        job.metrics?.server_id !== this.serverId ||
        !isActiveStatus(job.status)
      )
        continue;
      this.log.info({ jobId: job._id }, 'Resuming job');
      this.owned.adopt(job, true);
      this.events.drain(job._id);
    }
    for (const job of held) if (!isActiveStatus(job.status)) this.events.drain(job._id);
  }

  /**
   * Takes the jobs leased to `from` (at most {@link SCAN_LIMIT}) one at a time: each move is one
   * atomic, retryable write, and an active job is driven here as soon as its lease is this engine's.
   * A scan cut short (a failover, a store error) leaves the rest leased to `from`, taken at the next
   * scan, and never a job leased here that nothing drives; a multi-document update cut in half
   * could leave both. How many moved.
   */
  private async takeAll(from: string): Promise<number> {
    let moved = 0;
    for (const job of await this.jobs.leasedTo(from, SCAN_LIMIT)) {
      if (this.stopped) break;
      if (await this.takeOver(job._id, from)) moved += 1;
    }
    return moved;
  }

  /** Moves a job's lease from `from` to this engine; resumes it when active; publishes its outbox. False when `from` no longer held it. */
  private async takeOver(jobId: string, from: string): Promise<boolean> {
    if (this.stopped || this.owned.owns(jobId)) return false;
    const job = await this.jobs.takeLease(jobId, from, this.serverId, Date.now());
    if (job === null) return false;
    if (isActiveStatus(job.status) && !this.owned.owns(jobId)) {
      this.log.info({ jobId, from }, 'Resuming job');
      this.owned.adopt(job, true);
    }
    this.events.drain(jobId);
    return true;
  }

  /**
   * Drives a job here when its lease is this engine's (and no runner drives it), its holder is
   * dead, or it waits for a job worker (while this engine claims jobs); true when this engine drives it now.
   */
  async tryAdopt(jobId: string): Promise<boolean> {
    if (this.stopped) return false;
    if (this.owned.owns(jobId)) return true;
    const holder = await this.jobs.leaseOf(jobId);
    if (holder === undefined) return false;
    if (holder !== this.serverId && !this.workers.claimsJobs) return false;
    if (holder !== this.serverId && holder !== WAITING_LEASE) {
      const engine = await this.registry.find(holder);
      const dead =
        engine === null
          ? this.isDead(holder, 'none', this.clock.now())
          : engine.stopped === true || this.isDead(holder, `${engine.instance}:${engine.beat}`, this.clock.now());
      if (!dead) return false;
    }
    await this.takeOver(jobId, holder);
    return this.owned.owns(jobId);
  }
}
