import { JOB_STATUSES } from '@nap/contracts';
import type { JobEventName } from '@nap/contracts';
import { gaugeOnce, histogramOnce } from '@nap/telemetry';
import type { Histogram, Registry } from '@nap/telemetry';
import type { JobRecord } from '../domain/job-model';
import type { JobRepository } from '../store/job-repository';

/** Buckets of job and task durations, seconds: from a quick task to a long change window. */
const DURATION_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600, 14_400];

/** Statuses a job is still in flight in (the original platform's `iap_active_jobs`). */
const ACTIVE = ['running', 'paused'] as const;

/**
 * The workflow service's part of `/exporter_metrics`: jobs by state (read from the store at scrape
 * time, archived jobs included) and the active jobs (`max` across replicas), and job and task durations by workflow
 * (observed by the replica that ends them, `sum` across replicas). The `workflow` label is the
 * workflow's name: bounded by the workflows that exist, never a job id.
 */
export class JobMetricsRecorder {
  private readonly jobDuration: Histogram<'workflow' | 'state'>;
  private readonly taskDuration: Histogram<'workflow' | 'state'>;

  /**
   * `archived`, when given, answers how many jobs archives took out of the store, by state: the
   * `nap_jobs` gauge keeps counting them (they ended; the active jobs are all in the store).
   */
  constructor(registry: Registry, jobs: JobRepository, archived?: () => Promise<Record<string, number>>) {
    gaugeOnce(registry, {
      name: 'nap_active_jobs',
      help: 'Number of active jobs (running or paused)',
      aggregator: 'max',
      async collect() {
        this.set(await jobs.countByStatus(ACTIVE));
      },
    });
    gaugeOnce(registry, {
      name: 'nap_jobs',
      help: 'Jobs by state',
      labelNames: ['state'],
      aggregator: 'max',
      async collect() {
        const none: Record<string, number> = {};
        // the jobs that complete are most of a long history: they are what is left of every job
        // stored once the other states are counted, so that a scrape does not read them one by one
        const counted = JOB_STATUSES.filter((state) => state !== 'complete');
        const [total, counts, gone] = await Promise.all([
          jobs.countAll(),
          Promise.all(counted.map(async (state) => [state, await jobs.countByStatus(state)] as const)),
          archived?.() ?? none,
        ]);
        const others = counts.reduce((sum, [, count]) => sum + count, 0);
        // counted in reads of their own: a job that ended between them is off by one for one scrape
        const byState: (readonly [string, number])[] = [...counts, ['complete', Math.max(0, total - others)]];
        for (const [state, count] of byState) this.set({ state }, count + (gone[state] ?? 0));
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
}
