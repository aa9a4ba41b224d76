import { JobMetricsAccumulator } from './job-metrics';
import type { MetricSums } from './job-metrics';

/**
 * What archived jobs leave behind in the job and task metrics: their counts and durations, summed
 * per set of jobs that the same callers may see. Each entry carries the members a job's visibility
 * is decided by (`groups`, the initiator `runAs.id`, the owner `metrics.owner`), so that metrics
 * answered by group count archived jobs exactly as they counted them while they were live.
 */
export interface ArchivedMetricSums extends MetricSums {
  groups: string[];
  runAs?: { id: string };
  metrics?: { owner: string };
}

/** The members of a job that its metrics and its visibility are read from. */
export interface MetricJob {
  name?: unknown;
  status?: unknown;
  metrics?: unknown;
  tasks?: unknown;
  groups?: unknown;
  runAs?: unknown;
}

function visibilityOf(job: MetricJob): Omit<ArchivedMetricSums, 'jobs' | 'tasks'> {
  const groups = Array.isArray(job.groups) ? job.groups.filter((g): g is string => typeof g === 'string').sort() : [];
  const runAsId = typeof job.runAs === 'object' && job.runAs !== null ? (job.runAs as { id?: unknown }).id : undefined;
  const owner = typeof job.metrics === 'object' && job.metrics !== null ? (job.metrics as { owner?: unknown }).owner : undefined;
  return {
    groups,
    ...(typeof runAsId === 'string' ? { runAs: { id: runAsId } } : {}),
    ...(typeof owner === 'string' ? { metrics: { owner } } : {}),
  };
}

type Visibility = Omit<ArchivedMetricSums, 'jobs' | 'tasks'>;

/** Sums kept apart per distinct visibility (groups, initiator, owner). */
class SumsByVisibility {
  private readonly byVisibility = new Map<string, { visibility: Visibility; sums: JobMetricsAccumulator }>();

  of(visibility: Visibility): JobMetricsAccumulator {
    const key = JSON.stringify([visibility.groups, visibility.runAs?.id ?? null, visibility.metrics?.owner ?? null]);
    let entry = this.byVisibility.get(key);
    if (entry === undefined) {
      entry = { visibility, sums: new JobMetricsAccumulator() };
      this.byVisibility.set(key, entry);
    }
    return entry.sums;
  }

  entries(): ArchivedMetricSums[] {
    return [...this.byVisibility.values()].map(({ visibility, sums }) => ({ ...visibility, ...sums.sums() }));
  }
}

/** The sums of `jobs`, one entry per distinct visibility (groups, initiator, owner). */
export function archivedMetricSums(jobs: MetricJob[]): ArchivedMetricSums[] {
  const sums = new SumsByVisibility();
  for (const job of jobs) sums.of(visibilityOf(job)).add(job as Record<string, unknown>);
  return sums.entries();
}

/** `entries` (of many batches) added up: one entry per distinct visibility, whatever the number of batches. */
export function mergeArchivedMetricSums(entries: Iterable<ArchivedMetricSums>): ArchivedMetricSums[] {
  const sums = new SumsByVisibility();
  for (const { jobs, tasks, ...visibility } of entries) sums.of(visibility).addSums({ jobs, tasks });
  return sums.entries();
}
