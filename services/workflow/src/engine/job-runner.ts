import { hasCode, isAppError } from '@nap/contracts';
import type { JobEventName } from '@nap/contracts';
import type { Logger } from '@nap/telemetry';
import { errorMessage, isRecord, sleep } from '@nap/util';
import { START } from '../domain/graph';
import { isActiveStatus, isManual } from '../domain/job-model';
import type { JobRecord } from '../domain/job-model';
import type { ValueLimits } from '../domain/job-values';
import type { JobRepository } from '../store/job-repository';
import { ChildJobs } from './child-jobs';
import type { ChildJobHost } from './child-jobs';
import { jobEventPayload, outboxEntry } from './job-events';
import type { JobEventRelay } from './job-events';
import { JobState } from './job-state';
import { Loops } from './loops';
import type { DrivenJob, RunnerListener } from './owned-jobs';
import { Retries } from './retries';
import { Scheduler } from './scheduler';
import { TaskDispatcher } from './task-dispatch';
import type { DispatchHost } from './task-dispatch';
import type { WorkerSwitches } from './worker-switches';

/** What {@link JobRunner.whenThereIsRoom} answers when the runner halted while it waited. */
const HALTED = Symbol('halted');
/** The first and the longest wait before a step refused for want of space is written again. */
const ROOM_RETRY_FIRST_MS = 250;
const ROOM_RETRY_MAX_MS = 15_000;

/** True for a write the store refused for want of space before writing any of it (it may be made again as it is). */
function refusedForSpace(err: unknown): boolean {
  return hasCode(err, 'STORE_FULL') && isAppError(err) && isRecord(err.details) && err.details.nothingWritten === true;
}

/** What every runner of an engine works with (the same for all of them). */
export interface RunnerHost extends ChildJobHost, DispatchHost {
  serverId: string;
  repository: JobRepository;
  log: Logger;
  /** Publishes what the job's outbox holds (a step wrote events into it), given as the write left it when known. */
  events: Pick<JobEventRelay, 'drain'>;
  /** Sees every event of the job, once written, with the job as it is then (metrics). */
  observe(event: JobEventName, job: JobRecord, payload: Record<string, unknown>): void;
  /** A deactivated task worker starts no task (tasks in flight finish). */
  workers: Pick<WorkerSwitches, 'startsTasks'>;
  /** Where large values leave the job document, and the largest value a job holds. */
  valueLimits: ValueLimits;
}

/**
 * Drives one job on its owning engine. All changes to the job happen in serialized steps; each step
 * ends by starting the tasks that became ready, writing the changed parts of the job and the step's
 * events (into the job's outbox) in one store update (only while this engine still owns the job and
 * it is active), then launching the started tasks, so the store says a task runs before it does, and
 * having the events published.
 */
export class JobRunner implements DrivenJob {
  private readonly state: JobState;
  private readonly dispatch: TaskDispatcher;
  private readonly retries: Retries;
  private readonly children: ChildJobs;
  private readonly scheduler: Scheduler;
  private chain: Promise<void> = Promise.resolve();
  private stopped = false;
  private reloadQueued = false;
  /** Aborted by {@link halt}: ends a wait for room in the store. */
  private readonly halting = new AbortController();
  /** A new job not stored yet: the next flush inserts it, and settles this. */
  private insert: { resolve: () => void; reject: (err: unknown) => void } | undefined;

  constructor(
    private readonly host: RunnerHost,
    job: JobRecord,
    /** Told when the runner stops and when its job ends (the table of owned jobs). */
    private readonly listener: RunnerListener,
  ) {
    const step = (fn: () => void | Promise<void>) => this.step(fn);
    this.state = new JobState(job, host.serverId, host.log, host.valueLimits);
    this.retries = new Retries(this.state, step);
    this.dispatch = new TaskDispatcher(this.state, this.retries, step, host);
    this.children = new ChildJobs(this.state, host, step);
    this.scheduler = new Scheduler(this.state, this.dispatch, new Loops(this.state), this.children, (ended) => listener.ended(ended));
  }

  private get jobId(): string {
    return this.state.job._id;
  }

  /**
   * Starts driving: a new job starts at workflow_start (stored pending); a resumed one re-runs its
   * in-flight tasks, and starts at workflow_start when it never got past it (an engine died between
   * storing the job and writing its first step, or the job was stored before workflow_start was
   * stored pending).
   */
  begin(resumed: boolean): void {
    void this.step(() => {
      // workflow_start is stored pending, so a job stored while the job worker was deactivated starts here too
      if (this.state.job.tasks[START]?.status === 'incomplete') this.state.activate(START);
      if (!resumed) return;
      this.retries.resumeTimers();
      for (const [id, task] of Object.entries(this.state.job.tasks)) {
        if (task.status !== 'running') continue;
        if (task.name === 'forEach' && isRecord(task.loop)) continue;
        if (task.name === 'childJob' && isRecord(task.childRun)) {
          this.children.spawn(id);
          continue;
        }
        if (isManual(task)) continue;
        // at-least-once: the task was in flight when its previous owner stopped
        task.status = 'pending';
        this.state.markTask(id);
      }
      this.applyFinishRequests();
      this.children.checkSoon();
    });
  }

  /**
   * Starts driving a new job that is not stored yet: its first step (from workflow_start, as far as
   * inline tasks go) is stored with the job in one insert, instead of an insert and a step write.
   */
  beginNew(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.insert = { resolve, reject };
      void this.step(() => {
        if (this.state.job.tasks[START]?.status === 'incomplete') this.state.activate(START);
      });
    });
  }

  /** Stops the runner without touching the store (shutdown, lost claim). */
  async halt(): Promise<void> {
    this.stopped = true;
    this.halting.abort();
    this.dispatch.abortAll();
    await this.chain;
  }

  /** Reloads the job from the store in the next step (coalesced). */
  reloadSoon(): void {
    if (this.reloadQueued || this.stopped) return;
    this.reloadQueued = true;
    void this.step(async () => {
      this.reloadQueued = false;
      await this.reload();
    });
  }

  /** Takes the job as stored; stops when it ended or another engine owns it, else applies what handlers left on it. */
  private async reload(): Promise<void> {
    const fresh = await this.host.repository.findById(this.jobId);
    if (fresh === null) {
      this.stop();
      return;
    }
    this.state.replace(fresh);
    if (!isActiveStatus(fresh.status) || fresh.metrics?.server_id !== this.host.serverId) {
      this.stop();
      return;
    }
    this.applyFinishRequests();
    this.children.checkSoon();
  }

  /** Applies the answers that finishTask left on waiting manual tasks. */
  private applyFinishRequests(): void {
    for (const [id, task] of Object.entries(this.state.job.tasks)) {
      const request = task.finishRequest;
      if (task.status !== 'running' || request === undefined) continue;
      delete task.finishRequest;
      this.state.complete(id, { finishState: request.finishState, outgoing: request.variables });
    }
  }

  private stop(): void {
    this.stopped = true;
    this.dispatch.abortAll();
    this.listener.stopped();
  }

  /** Runs `fn` as one serialized step, then schedules, writes, publishes and launches. */
  private step(fn: () => void | Promise<void>): Promise<void> {
    const next = this.chain.then(async () => {
      if (this.stopped) return;
      this.dispatch.newStep();
      try {
        await fn();
        if (this.stopped) return;
        // a deactivated task worker starts nothing (and ends nothing); activation reloads every job
        if (this.host.workers.startsTasks) this.scheduler.schedule();
        await this.flush();
        if (this.stopped) return;
        for (const launch of this.state.takeLaunches()) launch();
        if (this.state.finished) this.stop();
      } catch (err) {
        const insert = this.insert;
        if (insert !== undefined) {
          // the new job's first step failed before it was stored: nothing to reload
          this.insert = undefined;
          this.stop();
          insert.reject(err);
          return;
        }
        if (hasCode(err, 'STORE_DOCUMENT_TOO_LARGE') || hasCode(err, 'VALUE_TOO_LARGE')) {
          await this.failTooLarge(err);
          return;
        }
        this.host.log.error({ err, jobId: this.jobId }, 'Job step failed; the job is reloaded from the store');
        this.state.discardAll();
        try {
          await this.reload();
        } catch {
          this.stop();
        }
      }
    });
    this.chain = next;
    return next;
  }

  /**
   * The job cannot be written any more (its document would pass 16 MiB with every value moved out
   * of it): it ends in error, saying why, rather than staying running with a step that was lost.
   */
  private async failTooLarge(err: unknown): Promise<void> {
    this.host.log.error({ err, jobId: this.jobId }, 'The job outgrew what the store holds; it ends in error');
    this.state.discardAll();
    const now = Date.now();
    const entry = {
      task: 'job',
      message: `${isAppError(err) ? err.code : 'STORE_DOCUMENT_TOO_LARGE'}: ${errorMessage(err)}`,
      timestamp: now,
    };
    const event = outboxEntry(
      'jobError',
      jobEventPayload({ ...this.state.job, status: 'error' }, { finishState: 'error', error: [entry] }),
    );
    try {
      if (await this.host.repository.failActive(this.jobId, this.host.serverId, entry, now, event)) this.host.events.drain(this.jobId);
      await this.reload();
    } catch (again) {
      this.host.log.error(
        { err: again, jobId: this.jobId },
        'Ending a job that outgrew the store failed; the job is reloaded from the store',
      );
    }
    if (!this.stopped) this.stop();
  }

  /**
   * Runs a step's write; one refused for want of space before any of it was written (`STORE_FULL`) is
   * tried again, later and later, until the store has room: the job holds its step in memory, so
   * the tasks that ended keep their results and none runs again. Every other failure is thrown as it
   * is (a write that may have been applied is not repeated). Answers {@link HALTED} when the runner
   * halts while it waits (shutdown).
   */
  private async whenThereIsRoom<T>(write: () => Promise<T>): Promise<T | typeof HALTED> {
    const since = Date.now();
    for (let attempt = 0; ; attempt += 1) {
      try {
        const written = await write();
        if (attempt > 0)
          this.host.log.info({ jobId: this.jobId, waitedMs: Date.now() - since }, 'The store had room again: the job wrote its step');
        return written;
      } catch (err) {
        if (!refusedForSpace(err)) throw err;
        if (attempt === 0)
          this.host.log.warn({ err, jobId: this.jobId }, 'The store is full: the job keeps its step and writes it once there is room');
        await sleep(Math.min(ROOM_RETRY_MAX_MS, ROOM_RETRY_FIRST_MS * 2 ** attempt), this.halting.signal);
        if (this.stopped) return HALTED;
      }
    }
  }

  /** Writes the step's changes and events while this engine owns the job; when it no longer does, drops them and stops. */
  private async flush(): Promise<void> {
    const write = this.state.takeWrite();
    const insert = this.insert;
    if (insert !== undefined) {
      this.insert = undefined;
      const events = write?.events ?? [];
      const doc = this.state.toInsert(events);
      try {
        await this.host.repository.insert(doc);
      } catch (err) {
        this.state.discardOutputs();
        this.stop();
        insert.reject(err);
        return;
      }
      insert.resolve();
      for (const entry of events) this.host.observe(entry.event, this.state.job, entry.payload);
      // the outbox as stored: the relay publishes from it without reading it back
      this.host.events.drain(this.jobId, { outbox: doc.outbox ?? [], published: 0, status: doc.status });
      return;
    }
    if (write === undefined) return;
    let written: Awaited<ReturnType<JobRepository['writeClaimed']>> | typeof HALTED;
    try {
      written = await this.whenThereIsRoom(() =>
        this.host.repository.writeClaimed(this.jobId, this.host.serverId, write.set, write.events),
      );
    } catch (err) {
      if (!hasCode(err, 'STORE_DOCUMENT_TOO_LARGE')) throw err;
      // many values, each under the inline size, made the job too large: every value leaves the document
      this.host.log.warn({ jobId: this.jobId }, 'The job document reached the store limit; its values move out of it');
      written = await this.whenThereIsRoom(() =>
        this.host.repository.writeClaimed(this.jobId, this.host.serverId, write.set, write.events, { inlineBytes: 0 }),
      );
    }
    if (written === HALTED) return;
    if (written !== false) {
      for (const entry of write.events) this.host.observe(entry.event, this.state.job, entry.payload);
      // the outbox as this write left it: the relay publishes from it without reading it back
      if (write.events.length > 0) this.host.events.drain(this.jobId, written === true ? undefined : written);
      return;
    }
    // canceled, or claimed by another engine: what we did is dropped
    this.state.discardOutputs();
    await this.reload();
    if (!this.stopped) this.stop();
  }
}
