import type { JobRecord } from '../domain/job-model';
import type { JobEventRelay } from './job-events';

/** The runner of a job driven here, as the table of owned jobs sees it. */
export interface DrivenJob {
  /** Starts driving a job that is in the store already: one resumed after its previous owner stopped, or one retried. */
  begin(resumed: boolean): void;
  /**
   * Starts driving a new job that is not stored yet: its first step is written together with the
   * job, in one insert. Resolves once the job is stored; rejects with the insert's error (the runner
   * has stopped then, and nothing was stored).
   */
  beginNew(): Promise<void>;
  /** Reloads the job from the store in its next step. */
  reloadSoon(): void;
  /** Stops driving without touching the store. */
  halt(): Promise<void>;
}

/** What a runner tells the table of owned jobs, which hands it over when it makes the runner. */
export interface RunnerListener {
  /** The runner stopped driving its job (it ended, was canceled, or another engine owns it now). */
  stopped(): void;
  /** The job ended: the owner of its parent, if any, is told. */
  ended(job: JobRecord): void;
}

/** Makes the runner of a job this engine has just claimed. */
export type RunnerFactory = (job: JobRecord, listener: RunnerListener) => DrivenJob;

/**
 * The jobs this engine drives: one runner per job, and the jobs being started here (stored, their
 * runner not registered yet), which no scan may adopt meanwhile. It also wakes the owner of a job
 * that changed in the store: the runner here when there is one, every replica over the bus otherwise.
 */
export class OwnedJobs {
  private readonly runners = new Map<string, DrivenJob>();
  private readonly starting = new Set<string>();

  constructor(
    private readonly createRunner: RunnerFactory,
    /** Publishes what a job's outbox holds. */
    private readonly events: Pick<JobEventRelay, 'drain'>,
    /** Tells every engine replica that a job changed in the store (the owner reloads it). */
    private readonly broadcastWake: (jobId: string) => void,
  ) {}

  /** How many jobs this engine drives now. */
  get count(): number {
    return this.runners.size;
  }

  /** True when this engine drives the job now, or is starting it. */
  owns(jobId: string): boolean {
    return this.runners.has(jobId) || this.starting.has(jobId);
  }

  /** Marks a job as being started here until the returned function is called. */
  reserve(jobId: string): () => void {
    this.starting.add(jobId);
    return () => this.starting.delete(jobId);
  }

  /** Drives a job whose lease this engine holds. */
  adopt(job: JobRecord, resumed: boolean): void {
    this.register(job).begin(resumed);
  }

  /** Stores a new job claimed by this engine with its first step, and drives it; rejects when it could not be stored. */
  startNew(job: JobRecord): Promise<void> {
    return this.register(job).beginNew();
  }

  private register(job: JobRecord): DrivenJob {
    const jobId = job._id;
    const runner = this.createRunner(job, {
      stopped: () => {
        if (this.runners.get(jobId) === runner) this.runners.delete(jobId);
      },
      ended: (ended) => this.notifyParent(ended),
    });
    this.runners.set(jobId, runner);
    return runner;
  }

  /** Stops every runner and forgets them; resolves once they all halted. */
  async haltAll(): Promise<void> {
    const runners = [...this.runners.values()];
    this.runners.clear();
    await Promise.all(runners.map((r) => r.halt()));
  }

  /** Every job driven here is reloaded (the task worker was switched on: their ready tasks start). */
  reloadAll(): void {
    for (const runner of this.runners.values()) runner.reloadSoon();
  }

  /** Another replica (or a handler) changed the job in the store: its runner here reloads it and publishes what its outbox holds. */
  wake(jobId: string): void {
    const runner = this.runners.get(jobId);
    if (runner === undefined) return;
    runner.reloadSoon();
    this.events.drain(jobId);
  }

  /** Wakes the job's owner, here and on every other replica. */
  wakeOwner(jobId: string): void {
    this.wake(jobId);
    this.broadcastWake(jobId);
  }

  /** Tells the owner of a job's parent that a child ended. */
  notifyParent(job: JobRecord): void {
    if (!job.parent) return;
    const parentId = job.parent.job;
    if (this.runners.has(parentId)) this.wake(parentId);
    else this.broadcastWake(parentId);
  }
}
