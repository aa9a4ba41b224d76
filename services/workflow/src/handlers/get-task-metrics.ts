import type { Handler } from '@nap/bus';
import { listDocuments, toListQuery } from '@nap/store';
import type { ListFields } from '@nap/store';
import { JobMetricsAccumulator } from '../domain/job-metrics';
import type { WorkflowContext } from '../context';
import { addArchivedMetrics } from '../context';

const TASK_METRIC_FIELDS: ListFields = {
  filter: ['workflow', 'taskId', 'name', 'app', 'taskType', '_id'],
  sort: ['workflow', 'taskId', 'name', 'app'],
  defaultSort: { workflow: 1, taskId: 1 },
};

/** `GET /workflow_engine/tasks/metrics`: counts and durations per workflow task, summed over the job store and the jobs archived from it. */
export function getTaskMetrics(svc: WorkflowContext): Handler<'workflow.getTaskMetrics'> {
  return async (input) => {
    const query = toListQuery(input.query, TASK_METRIC_FIELDS);
    const sums = new JobMetricsAccumulator();
    for await (const batch of svc.jobs.scan({}, { name: 1, status: 1, metrics: 1, tasks: 1 }, 200)) for (const job of batch) sums.add(job);
    await addArchivedMetrics(svc, sums);
    const { items, total } = listDocuments(sums.taskMetrics(), query);
    return { results: items, total };
  };
}
