import { JOB_STATUSES } from '@nap/contracts';
import type { JobEventName, JobStatus } from '@nap/contracts';
import { gaugeOnce, histogramOnce } from '@nap/telemetry';
import type { Histogram, Registry } from '@nap/telemetry';
import type { JobRecord } from '../domain/job-model';
import type { JobRepository } from '../store/job-repository';

/** Buckets of job and task durations, seconds: from a quick task to a long change window. */
const DURATION_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600, 14_400];

/** Statuses a job is still in flight in (the original platform's `iap_active_jobs`). */
const ACTIVE = ['running', 'paused'] as const;

/**
 * Ended states other than `complete` whose store counts are kept between recounts: with `complete`,
 * they are a long history (a count over the status index reads one key per job), while the states
 * in {@link ACTIVE} hold only the jobs in flight and are counted at every scrape.
 */
const SETTLED = ['error', 'canceled'] as const;
type SettledState = (typeof SETTLED)[number];

/** The engine events that end a job in a {@link SETTLED} state. */
const SETTLING_EVENTS: Partial<Record<JobEventName, SettledState>> = { jobError: 'error', jobCancel: 'canceled' };

/** Default of {@link JobMetricsRecorderOptions.settledRecountMs}: 5 minutes. */
export const DEFAULT_SETTLED_RECOUNT_MS = 300_000;

/** Options of a {@link JobMetricsRecorder}. */
export interface JobMetricsRecorderOptions {
  /**
   * How long the store counts of the jobs in `error` and `canceled` serve scrapes before they are
   * counted again, milliseconds; default {@link DEFAULT_SETTLED_RECOUNT_MS}. Between two counts the
   * jobs this replica ends in those states are added as it ends them; those other replicas end (or a
   * retry takes out of `error`) show at the next count.
   */
  settledRecountMs?: number;
  /** The clock, milliseconds since the epoch; `Date.now` by default. */
  now?: () => number;
}

/** The last store count of the {@link SETTLED} states, and what it was taken beside. */
interface SettledCount {
  counts: Record<SettledState, number>;
  /** {@link JobMetricsRecorder.ownEnds} when it was taken. */
  ownEndsThen: Record<SettledState, number>;
  at: number;
  /** The jobs archives had taken out of the store then: when more leave, the store is counted again. */
  archivedThen: number;
}

function sumOf(counts: Record<string, number>): number {
  return Object.values(counts).reduce((sum, n) => sum + n, 0);
}

/**
 * The workflow service's part of `/exporter_metrics`: jobs by state (read from the store, archived
 * jobs included) and the active jobs (`max` across replicas), and job and task durations by workflow
 * (observed by the replica that ends them, `sum` across replicas). The `workflow` label is the
 * workflow's name: bounded by the workflows that exist, never a job id.
 *
 * A scrape costs the same however long the history: it counts the jobs in flight (`running`,
 * `paused`) over the status index and takes the store's total, which is kept, not counted;
 * `error` and `canceled` come from a count of the store at most `settledRecountMs` old plus the jobs
 * this replica ended in them since (from the engine's own events, which cost the job nothing more);
 * `complete`, the bulk of the history, is what is left of the total.
 */
export class JobMetricsRecorder {
  private readonly jobDuration: Histogram<'workflow' | 'state'>;
  private readonly taskDuration: Histogram<'workflow' | 'state'>;
  /** Jobs this replica ended in each {@link SETTLED} state since it started (only ever grows). */
  private readonly ownEnds: Record<SettledState, number> = { error: 0, canceled: 0 };
  private settled: SettledCount | undefined;
  private recounting: Promise<SettledCount> | undefined;
  private readonly settledRecountMs: number;
  private readonly now: () => number;

  /**
   * `archived`, when given, answers how many jobs archives took out of the store, by state: the
   * `nap_jobs` gauge keeps counting them (they ended; the active jobs are all in the store).
   */
  constructor(
    registry: Registry,
    private readonly jobs: JobRepository,
    archived?: () => Promise<Record<string, number>>,
    options: JobMetricsRecorderOptions = {},
  ) {
    this.settledRecountMs = options.settledRecountMs ?? DEFAULT_SETTLED_RECOUNT_MS;
    this.now = options.now ?? Date.now;
    gaugeOnce(registry, {
      name: 'nap_active_jobs',
      help: 'Number of active jobs (running or paused)',
      aggregator: 'max',
      async collect() {
        this.set(await jobs.countByStatus(ACTIVE));
      },
    });
    const settledCounts = (archivedNow: number): Promise<Record<SettledState, number>> => this.settledCounts(archivedNow);
    gaugeOnce(registry, {
      name: 'nap_jobs',
      help: 'Jobs by state',
      labelNames: ['state'],
      aggregator: 'max',
      async collect() {
        const none: Record<string, number> = {};
        const [total, running, paused, gone] = await Promise.all([
          jobs.countAll(),
          jobs.countByStatus('running'),
          jobs.countByStatus('paused'),
          archived?.() ?? none,
        ]);
        const settled = await settledCounts(sumOf(gone));
        // every state, or this does not compile
        const byState: Record<JobStatus, number> = { running, paused, ...settled, complete: 0 };
        // counted in reads of their own, the settled ones maybe minutes old: the states stay within
        // the store's total, and a job counted twice or not yet is off by one until the next recount
        byState.complete = Math.max(0, total - sumOf(byState));
        for (const state of JOB_STATUSES) this.set({ state }, byState[state] + (gone[state] ?? 0));
      },
    });
    this.jobDuration = histogramOnce(registry, {
      name: 'nap_job_duration_seconds',
      help: 'How long jobs ran, by workflow and final state',
      labelNames: ['workflow', 'state'],
      buckets: DURATION_BUCKETS,
    });
    this.taskDuration = histogramOnce(registry, {
      name: 'nap_task_duration_seconds',
      help: 'How long tasks ran, by workflow and finish state',
      labelNames: ['workflow', 'state'],
      buckets: DURATION_BUCKETS,
    });
  }

  /** Called with every event the engine publishes, and the job as it is then. */
  observe(event: JobEventName, job: JobRecord, payload: Record<string, unknown>): void {
    const settles = SETTLING_EVENTS[event];
    if (settles !== undefined) this.ownEnds[settles]++;
    if (event === 'jobComplete' || event === 'jobError' || event === 'jobCancel') {
      // a canceled job has no run_time yet: it ran until now
      const runMs = job.metrics?.run_time ?? (job.metrics?.start_time !== undefined ? Date.now() - job.metrics.start_time : undefined);
      if (typeof runMs === 'number') this.jobDuration.observe({ workflow: job.name, state: job.status }, runMs / 1000);
    } else if (event === 'taskFinish' && typeof payload.taskId === 'string') {
      const task = job.tasks[payload.taskId];
      const runMs = task?.metrics?.run_time;
      if (typeof runMs === 'number')
        this.taskDuration.observe({ workflow: job.name, state: String(task?.metrics?.finish_state ?? task?.status) }, runMs / 1000);
    }
  }

  /**
   * The jobs in each {@link SETTLED} state: the last store count plus those this replica ended since,
   * counted again when the count is `settledRecountMs` old or archives took more jobs out of the store
   * (`archivedNow`, which the gauge adds apart: a count that still held them would count them twice).
   */
  private async settledCounts(archivedNow: number): Promise<Record<SettledState, number>> {
    let count = this.settled;
    if (count === undefined || this.now() - count.at >= this.settledRecountMs || count.archivedThen !== archivedNow) {
      // concurrent scrapes share one count
      this.recounting ??= this.countSettled(archivedNow).finally(() => {
        this.recounting = undefined;
      });
      count = await this.recounting;
    }
    const { counts, ownEndsThen } = count;
    return {
      error: counts.error + this.ownEnds.error - ownEndsThen.error,
      canceled: counts.canceled + this.ownEnds.canceled - ownEndsThen.canceled,
    };
  }

  private async countSettled(archivedNow: number): Promise<SettledCount> {
    const at = this.now();
    // taken as the counts start: a job ended after this is added by its event, not by the count
    const ownEndsThen = { ...this.ownEnds };
    const [error, canceled] = await Promise.all(SETTLED.map((state) => this.jobs.countByStatus(state)));
    this.settled = { counts: { error: error ?? 0, canceled: canceled ?? 0 }, ownEndsThen, at, archivedThen: archivedNow };
    return this.settled;
  }
}
