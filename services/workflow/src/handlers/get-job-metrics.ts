import type { Handler } from '@nap/bus';
import { listDocuments, toListQuery } from '@nap/store';
import type { ListFields } from '@nap/store';
import { JobMetricsAccumulator } from '../domain/job-metrics';
import { canSeeJob } from '../domain/job-model';
import { addArchivedMetrics, metricsScope, ofVisibleWorkflows } from '../context';
import type { WorkflowContext } from '../context';

const JOB_METRIC_FIELDS: ListFields = {
  filter: ['workflow', '_id'],
  sort: ['workflow', 'jobsTotal', 'totalRunTime', 'averageRunTime', 'lastStarted'],
  defaultSort: { workflow: 1 },
};

/**
 * `GET /workflow_engine/jobs/metrics`: counts and durations per workflow, summed over the job store
 * and the jobs archived from it (for a caller who is not an admin, over the jobs they may see, of
 * the workflows they may see).
 */
export function getJobMetrics(svc: WorkflowContext): Handler<'workflow.getJobMetrics'> {
  return async (input, ctx) => {
    const query = toListQuery(input.query, JOB_METRIC_FIELDS);
    const sums = new JobMetricsAccumulator();
    for await (const batch of svc.jobs.scan(metricsScope(ctx.caller), { name: 1, status: 1, metrics: 1 }))
      for (const job of batch) sums.add(job);
    await addArchivedMetrics(svc, sums, (entry) => canSeeJob(entry, ctx.caller));
    const { items, total } = listDocuments(await ofVisibleWorkflows(ctx, sums.jobMetrics()), query);
    return { results: items, total };
  };
}
