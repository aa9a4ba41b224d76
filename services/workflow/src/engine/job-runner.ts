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
import type { StepWrite } from './job-state';
import { Loops } from './loops';
import type { DrivenJob, RunnerListener } from './owned-jobs';
import { Retries } from './retries';
import { Scheduler } from './scheduler';
import { refusedForSpace, storeOutage, storeRetryDelay } from './store-failures';
import { TaskDispatcher } from './task-dispatch';
import type { DispatchHost } from './task-dispatch';
import type { WorkerSwitches } from './worker-switches';

/** What {@link JobRunner.untilWritten} and {@link JobRunner.untilStoreAnswers} answer when the runner halted while they waited. */
const HALTED = Symbol('halted');
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
    const fresh = await this.untilStoreAnswers(() => this.host.repository.findById(this.jobId));
    if (fresh === HALTED) return;
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

  /** Applies the answers that finishTask left on waiting manual tasks, recording who answered and when. */
  private applyFinishRequests(): void {
    for (const [id, task] of Object.entries(this.state.job.tasks)) {
      const request = task.finishRequest;
      if (task.status !== 'running' || request === undefined) continue;
      delete task.finishRequest;
      this.state.complete(id, { finishState: request.finishState, outgoing: request.variables }, { by: request.by, at: request.at });
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
   * Reads the store, and reads again while it does not answer (see {@link storeOutage}), later and
   * later: the runner keeps what it holds (its tasks run on) rather than dropping it. Answers
   * {@link HALTED} when the runner halts while it waits (shutdown).
   */
  private async untilStoreAnswers<T>(read: () => Promise<T>): Promise<T | typeof HALTED> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        const answer = await read();
        if (attempt > 0) this.host.log.info({ jobId: this.jobId }, 'The store answers again: the job reads it');
        return answer;
      } catch (err) {
        if (!storeOutage(err)) throw err;
        if (attempt === 0) this.host.log.warn({ err, jobId: this.jobId }, 'The store does not answer: the job reads it again once it does');
        await sleep(storeRetryDelay(attempt + 1), this.halting.signal);
        if (this.stopped) return HALTED;
      }
    }
  }

  /**
   * Writes a step, holding it in memory until the store has it: the tasks that ended keep their
   * results, and none runs again.
   * - A write refused for want of space before any of it was written (`STORE_FULL`) is made again,
   *   later and later, until the store has room.
   * - A write whose outcome the store did not say (see {@link storeOutage}) may have been applied:
   *   once the store answers, the job's count of steps says whether it was; if it was not, it is
   *   made again (it applies only at that count, so never twice).
   * - A job that outgrew the document limit moves every value out of it and is written again.
   * Every other failure is thrown as it is. Answers {@link HALTED} when the runner halts while it
   * waits (shutdown); `true` for a write found applied (its outbox is read back to publish it).
   */
  private async untilWritten(write: StepWrite): Promise<Awaited<ReturnType<JobRepository['writeClaimed']>> | typeof HALTED> {
    const since = Date.now();
    let inlineBytes: number | undefined;
    let refusals = 0;
    let outages = 0;
    for (;;) {
      try {
        const written = await this.host.repository.writeClaimed(this.jobId, this.host.serverId, write.set, write.events, {
          steps: write.steps,
          // whose secrets the write seals
          job: this.state.job,
          ...(inlineBytes === undefined ? {} : { inlineBytes }),
        });
        if (written === false && outages > 0) {
          // refused: the write that failed may have landed since the count was read (it reached the server late)
          const stored = await this.untilStoreAnswers(() => this.host.repository.stepsOf(this.jobId));
          if (stored === HALTED) return HALTED;
          if (this.appliedAs(stored, write)) {
            this.host.log.info({ jobId: this.jobId, waitedMs: Date.now() - since }, 'The store answers again: it had written the step');
            return true;
          }
          return false;
        }
        if (refusals > 0)
          this.host.log.info({ jobId: this.jobId, waitedMs: Date.now() - since }, 'The store had room again: the job wrote its step');
        else if (outages > 0)
          this.host.log.info({ jobId: this.jobId, waitedMs: Date.now() - since }, 'The store answers again: the job wrote its step');
        return written;
      } catch (err) {
        if (hasCode(err, 'STORE_DOCUMENT_TOO_LARGE') && inlineBytes === undefined) {
          // many values, each under the inline size, made the job too large: every value leaves the document
          this.host.log.warn({ jobId: this.jobId }, 'The job document reached the store limit; its values move out of it');
          inlineBytes = 0;
          continue;
        }
        if (refusedForSpace(err)) {
          refusals += 1;
          if (refusals === 1)
            this.host.log.warn({ err, jobId: this.jobId }, 'The store is full: the job keeps its step and writes it once there is room');
          await sleep(storeRetryDelay(refusals), this.halting.signal);
          if (this.stopped) return HALTED;
          continue;
        }
        if (!storeOutage(err)) throw err;
        outages += 1;
        if (outages === 1)
          this.host.log.warn(
            { err, jobId: this.jobId },
            'The store did not say whether it wrote the step: the job keeps its step, and writes it once the store answers unless it has it',
          );
        await sleep(storeRetryDelay(outages), this.halting.signal);
        if (this.stopped) return HALTED;
        const stored = await this.untilStoreAnswers(() => this.host.repository.stepsOf(this.jobId));
        if (stored === HALTED) return HALTED;
        // canceled or taken over meanwhile: the step is dropped as a refused one is
        if (stored === null || !isActiveStatus(stored.status) || stored.serverId !== this.host.serverId) return false;
        if (this.appliedAs(stored, write)) {
          this.host.log.info({ jobId: this.jobId, waitedMs: Date.now() - since }, 'The store answers again: it had written the step');
          return true;
        }
      }
    }
  }

  /** True when the job as stored (`stepsOf`) has `write` applied: this engine still drives it, active, one step further. */
  private appliedAs(stored: Awaited<ReturnType<JobRepository['stepsOf']>>, write: StepWrite): boolean {
    return stored !== null && isActiveStatus(stored.status) && stored.serverId === this.host.serverId && stored.steps === write.steps + 1;
  }

  /** Writes the step's changes and events while this engine owns the job; when it no longer does, drops them and stops. */
  private async flush(): Promise<void> {
    const insert = this.insert;
    if (insert !== undefined) {
      this.insert = undefined;
      const events = this.state.takeFirstStep();
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
    const write = this.state.takeWrite();
    if (write === undefined) return;
    const written = await this.untilWritten(write);
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
