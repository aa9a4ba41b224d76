import { AppError, jobTaskItemSchema, parseAs } from '@nap/contracts';
import type { Handler } from '@nap/bus';
import { listProjected, pageLinks } from '@nap/store';
import { buildJobQuery } from '../domain/job-query';
import { flattenTasks } from '../domain/job-tasks';
import { visibilityFilter } from '../domain/job-model';
import type { WorkflowContext } from '../context';

/** Jobs whose tasks the task list searches at most (the most recently started). */
const TASK_SCAN_JOBS = 2_000;

/** `GET /operations-manager/tasks`: the tasks of the jobs the caller may see, by the job query's members. */
export function getTasks(svc: WorkflowContext): Handler<'workflow.getTasks'> {
  return async (input, ctx) => {
    if (input.query.after !== undefined)
      throw new AppError('JOB_QUERY_INVALID', 'after pages GET /operations-manager/jobs by keyset; the task list pages with skip');
    const query = buildJobQuery(input.query);
    const jobs = await svc.jobs.recent(visibilityFilter(ctx.caller) ?? {}, { _id: 1, name: 1, status: 1, tasks: 1 }, TASK_SCAN_JOBS);
    const { items, total } = listProjected(flattenTasks(jobs), query);
    return {
      message: 'Successfully retrieved items',
      data: items.map((item, i) => parseAs(jobTaskItemSchema, item, `data[${i}]`)),
      metadata: {
        total,
        skip: query.skip,
        limit: query.limit,
        currentPageSize: items.length,
        ...pageLinks(query.skip, query.limit, total),
      },
    };
  };
}
