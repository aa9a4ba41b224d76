import type { JobMetric, TaskMetric } from '@nap/contracts';
import { isRecord } from '@nap/util';

/** Sums of durations as they are kept for archived jobs (milliseconds; `min` and `max` only once `count` > 0). */
export interface DurationSums {
  total: number;
  count: number;
  min?: number;
  max?: number;
}

/** Counts by status and durations of the jobs of one workflow, summed (what archived jobs leave behind). */
export interface JobSums {
  workflow: string;
  counts: Record<string, number>;
  durations: DurationSums;
  /** Epoch ms; 0 when none started. */
  lastStarted: number;
}

/** Counts by outcome and durations of one task of one workflow, summed. */
export interface TaskSums {
  workflow: string;
  taskId: string;
  name: string;
  app: string;
  taskType: string;
  counts: Record<string, number>;
  durations: DurationSums;
}

/** What a set of jobs adds to the job and task metrics, without the jobs: kept when jobs are archived. */
export interface MetricSums {
  jobs: JobSums[];
  tasks: TaskSums[];
}

/** Running sums of durations, milliseconds. */
class Durations {
  total = 0;
  count = 0;
  min = Number.POSITIVE_INFINITY;
  max = 0;

  merge(sums: DurationSums): void {
    if (sums.count <= 0) return;
    this.total += sums.total;
    this.count += sums.count;
    if (sums.min !== undefined) this.min = Math.min(this.min, sums.min);
    if (sums.max !== undefined) this.max = Math.max(this.max, sums.max);
  }

  sums(): DurationSums {
    return { total: this.total, count: this.count, ...(this.count > 0 ? { min: this.min, max: this.max } : {}) };
  }

  add(ms: unknown): void {
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) return;
    this.total += ms;
    this.count += 1;
    this.min = Math.min(this.min, ms);
    this.max = Math.max(this.max, ms);
  }

  view() {
    return {
      totalRunTime: this.total,
      averageRunTime: this.count === 0 ? 0 : Math.round(this.total / this.count),
      ...(this.count > 0 ? { minRunTime: this.min, maxRunTime: this.max } : {}),
    };
  }
}

function addCounts(into: Record<string, number>, counts: Record<string, number>): void {
  for (const [key, n] of Object.entries(counts)) into[key] = (into[key] ?? 0) + n;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function runTime(metrics: Record<string, unknown>): number | undefined {
  if (typeof metrics.run_time === 'number') return metrics.run_time;
  if (typeof metrics.start_time === 'number' && typeof metrics.end_time === 'number') return metrics.end_time - metrics.start_time;
  return undefined;
}

/**
 * Counts and durations per workflow (job metrics) and per workflow task (task metrics), summed over
 * jobs as the store holds them (`name`, `status`, `metrics`, `tasks`), one batch at a time.
 */
export class JobMetricsAccumulator {
  private readonly jobs = new Map<string, { counts: Record<string, number>; durations: Durations; lastStarted: number }>();
  private readonly tasks = new Map<
    string,
    { workflow: string; taskId: string; name: string; app: string; taskType: string; counts: Record<string, number>; durations: Durations }
  >();

  /** Adds one job's counts (and, when it carries `tasks`, its tasks'). */
  add(job: Record<string, unknown>): void {
    const workflow = text(job.name);
    const metrics = isRecord(job.metrics) ? job.metrics : {};
    const entry = this.jobs.get(workflow) ?? { counts: {}, durations: new Durations(), lastStarted: 0 };
    const status = text(job.status);
    entry.counts[status] = (entry.counts[status] ?? 0) + 1;
    if (status === 'complete' || status === 'error' || status === 'canceled') entry.durations.add(runTime(metrics));
    if (typeof metrics.start_time === 'number') entry.lastStarted = Math.max(entry.lastStarted, metrics.start_time);
    this.jobs.set(workflow, entry);
    if (!isRecord(job.tasks)) return;
    for (const [taskId, task] of Object.entries(job.tasks)) {
      if (!isRecord(task) || taskId === 'workflow_start' || taskId === 'workflow_end') continue;
      const taskStatus = text(task.status);
      if (taskStatus === 'incomplete' || taskStatus === 'pending' || taskStatus === '') continue;
      const key = `${workflow}/${taskId}`;
      const t = this.tasks.get(key) ?? {
        workflow,
        taskId,
        name: text(task.name),
        app: text(task.app),
        taskType: text(task.type),
        counts: {},
        durations: new Durations(),
      };
      const taskMetrics = isRecord(task.metrics) ? task.metrics : {};
      const outcome = taskStatus === 'running' ? 'running' : text(taskMetrics.finish_state) || taskStatus;
      t.counts[outcome] = (t.counts[outcome] ?? 0) + 1;
      if (taskStatus !== 'running') t.durations.add(runTime(taskMetrics));
      this.tasks.set(key, t);
    }
  }

  /** Adds sums kept from jobs no longer in the store (archived): they count as the jobs did. */
  addSums(sums: MetricSums): void {
    for (const j of sums.jobs) {
      const entry = this.jobs.get(j.workflow) ?? { counts: {}, durations: new Durations(), lastStarted: 0 };
      addCounts(entry.counts, j.counts);
      entry.durations.merge(j.durations);
      entry.lastStarted = Math.max(entry.lastStarted, j.lastStarted);
      this.jobs.set(j.workflow, entry);
    }
    for (const t of sums.tasks) {
      const key = `${t.workflow}/${t.taskId}`;
      const entry = this.tasks.get(key) ?? { ...t, counts: {}, durations: new Durations() };
      addCounts(entry.counts, t.counts);
      entry.durations.merge(t.durations);
      this.tasks.set(key, entry);
    }
  }

  /** What the jobs added so far contribute, as sums that {@link addSums} adds back. */
  sums(): MetricSums {
    return {
      jobs: [...this.jobs.entries()].map(([workflow, e]) => ({
        workflow,
        counts: { ...e.counts },
        durations: e.durations.sums(),
        lastStarted: e.lastStarted,
      })),
      tasks: [...this.tasks.values()].map((t) => ({
        workflow: t.workflow,
        taskId: t.taskId,
        name: t.name,
        app: t.app,
        taskType: t.taskType,
        counts: { ...t.counts },
        durations: t.durations.sums(),
      })),
    };
  }

  jobMetrics(): JobMetric[] {
    return [...this.jobs.entries()].map(([workflow, e]) => {
      const c = (s: string) => e.counts[s] ?? 0;
      return {
        _id: workflow,
        workflow,
        jobsTotal: Object.values(e.counts).reduce((n, v) => n + v, 0),
        jobsRunning: c('running'),
        jobsPaused: c('paused'),
        jobsComplete: c('complete'),
        jobsError: c('error'),
        jobsCanceled: c('canceled'),
        ...e.durations.view(),
        ...(e.lastStarted > 0 ? { lastStarted: e.lastStarted } : {}),
      };
    });
  }

  taskMetrics(): TaskMetric[] {
    return [...this.tasks.entries()].map(([key, t]) => {
      const c = (s: string) => t.counts[s] ?? 0;
      return {
        _id: key,
        workflow: t.workflow,
        taskId: t.taskId,
        name: t.name,
        app: t.app,
        taskType: t.taskType,
        metrics: {
          runs: Object.values(t.counts).reduce((n, v) => n + v, 0),
          running: c('running'),
          success: c('success'),
          failure: c('failure'),
          error: c('error'),
          canceled: c('canceled'),
          ...t.durations.view(),
        },
      };
    });
  }
}
