import { AppError, jobTaskItemSchema, parseAs, redactSecrets } from '@nap/contracts';
import type { Handler } from '@nap/bus';
import { listDocuments, listProjected, pageLinks } from '@nap/store';
import type { Doc, Filter } from '@nap/store';
import { buildJobQuery } from '../domain/job-query';
import type { JobQuery } from '../domain/job-query';
import { TASK_BATCH_JOBS, TASK_SCAN_JOBS, flattenTasks, taskJobScope, taskProjection } from '../domain/job-tasks';
import { visibilityFilter } from '../domain/job-model';
import { maskPageSecrets, withSecretInputs } from '../domain/job-secrets';
import type { WorkflowContext } from '../context';

/** Each job's variables come too: what masks the secrets a job started with wherever its tasks repeat them. */
const TASK_JOB_PROJECTION = withSecretInputs({ _id: 1, name: 1, status: 1, tasks: 1, variables: 1 });

/**
 * The tasks that match a task query, read a batch of jobs at a time: every match is counted, and
 * only the first `skip + limit` in the query's order are kept, so memory holds the page and one
 * batch, not every task of every job searched.
 */
class MatchingTasks {
  private kept: Doc[] = [];
  total = 0;

  constructor(private readonly query: JobQuery) {}

  add(tasks: Doc[]): void {
    const { filter, sort, skip, limit } = this.query;
    const found = listDocuments(tasks, { filter, sort, skip: 0, limit: skip + limit });
    this.total += found.total;
    if (found.items.length === 0) return;
    this.kept = listDocuments([...this.kept, ...found.items], { filter: {}, sort, skip: 0, limit: skip + limit }).items;
  }

  page(): Doc[] {
    const { sort, skip, limit, projection } = this.query;
    return listProjected(this.kept, { filter: {}, sort, skip, limit, projection }).items;
  }
}

function both(a: Filter | undefined, b: Filter): Filter {
  if (a === undefined) return b;
  return Object.keys(b).length === 0 ? a : { $and: [a, b] };
}

/**
 * `GET /operations-manager/tasks`: the tasks of the jobs the caller may see, by the job query's
 * members. A query that requires running/paused jobs (the work queue) or names jobs by id searches
 * every such job; any other searches the {@link TASK_SCAN_JOBS} most recently started jobs that
 * match its job members, and says when that left jobs out.
 */
export function getTasks(svc: WorkflowContext): Handler<'workflow.getTasks'> {
  return async (input, ctx) => {
    if (input.query.after !== undefined)
      throw new AppError('JOB_QUERY_INVALID', 'after pages GET /operations-manager/jobs by keyset; the task list pages with skip');
    const jobQuery = buildJobQuery(input.query, undefined, { sortHints: false });
    const query = { ...jobQuery, projection: taskProjection(jobQuery.projection) };
    const scope = taskJobScope(query.filter);
    const jobFilter = both(visibilityFilter(ctx.caller), scope.filter);
    const window = scope.everyJob ? undefined : TASK_SCAN_JOBS;
    const matching = new MatchingTasks(query);
    let searchedJobs = 0;
    let bounded = false;
    // one job past the window tells whether the window left any out
    const batches = svc.jobs.newestFirst(jobFilter, TASK_JOB_PROJECTION, {
      batch: TASK_BATCH_JOBS,
      ...(window === undefined ? {} : { limit: window + 1 }),
    });
    for await (const batch of batches) {
      const jobs = window === undefined ? batch : batch.slice(0, window - searchedJobs);
      if (jobs.length < batch.length) bounded = true;
      searchedJobs += jobs.length;
      // a job's tasks show the values they ran with: masked like the job (by name, and what its workflow declares secret)
      matching.add(flattenTasks((await maskPageSecrets(jobs)).map(redactSecrets)));
    }
    const items = matching.page();
    const { total } = matching;
    const hints = [...query.hints];
    if (bounded)
      hints.push(
        `only the tasks of the ${TASK_SCAN_JOBS.toLocaleString('en')} most recently started matching jobs were searched (metadata.bounded): ` +
          'older jobs may hold more matching tasks; require job.status running/paused (in[job.status]=running,paused) or name job._id to search every such job',
      );
    return {
      message: 'Successfully retrieved items',
      data: items.map((item, i) => parseAs(jobTaskItemSchema, item, `data[${i}]`)),
      metadata: {
        total,
        skip: query.skip,
        limit: query.limit,
        currentPageSize: items.length,
        ...pageLinks(query.skip, query.limit, total),
        searchedJobs,
        bounded,
        hints,
      },
    };
  };
}
