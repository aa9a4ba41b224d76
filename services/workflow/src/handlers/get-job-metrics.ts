import type { Handler } from '@nap/bus';
import { listDocuments, toListQuery } from '@nap/store';
import type { ListFields } from '@nap/store';
import { JobMetricsAccumulator } from '../domain/job-metrics';
import type { WorkflowContext } from '../context';
import { addArchivedMetrics } from '../context';

const JOB_METRIC_FIELDS: ListFields = {
  filter: ['workflow', '_id'],
  sort: ['workflow', 'jobsTotal', 'totalRunTime', 'averageRunTime', 'lastStarted'],
  defaultSort: { workflow: 1 },
};

/** `GET /workflow_engine/jobs/metrics`: counts and durations per workflow, summed over the job store and the jobs archived from it. */
export function getJobMetrics(svc: WorkflowContext): Handler<'workflow.getJobMetrics'> {
  return async (input) => {
    const query = toListQuery(input.query, JOB_METRIC_FIELDS);
    const sums = new JobMetricsAccumulator();
    for await (const batch of svc.jobs.scan({}, { name: 1, status: 1, metrics: 1 })) for (const job of batch) sums.add(job);
    await addArchivedMetrics(svc, sums);
    const { items, total } = listDocuments(sums.jobMetrics(), query);
    return { results: items, total };
  };
}
