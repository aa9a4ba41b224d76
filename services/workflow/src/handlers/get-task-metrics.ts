import type { Handler } from '@nap/bus';
import { listDocuments, toListQuery } from '@nap/store';
import type { ListFields } from '@nap/store';
import { JobMetricsAccumulator } from '../domain/job-metrics';
import { canSeeJob } from '../domain/job-model';
import { addArchivedMetrics, metricsScope, ofVisibleWorkflows } from '../context';
import type { WorkflowContext } from '../context';

const TASK_METRIC_FIELDS: ListFields = {
  filter: ['workflow', 'taskId', 'name', 'app', 'taskType', '_id'],
  sort: ['workflow', 'taskId', 'name', 'app'],
  defaultSort: { workflow: 1, taskId: 1 },
};

/**
 * `GET /workflow_engine/tasks/metrics`: counts and durations per workflow task, summed over the job
 * store and the jobs archived from it (for a caller who is not an admin, over the jobs they may see,
 * of the workflows they may see).
 */
export function getTaskMetrics(svc: WorkflowContext): Handler<'workflow.getTaskMetrics'> {
  return async (input, ctx) => {
    const query = toListQuery(input.query, TASK_METRIC_FIELDS);
    const sums = new JobMetricsAccumulator();
    for await (const batch of svc.jobs.scan(metricsScope(ctx.caller), { name: 1, status: 1, metrics: 1, tasks: 1 }, 200, { values: false }))
      for (const job of batch) sums.add(job);
    await addArchivedMetrics(svc, sums, (entry) => canSeeJob(entry, ctx.caller));
    const { items, total } = listDocuments(await ofVisibleWorkflows(ctx, sums.taskMetrics()), query);
    return { results: items, total };
  };
}
