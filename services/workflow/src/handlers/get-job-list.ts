import { AppError, JOB_STATUSES, assertJsonDepth, assertNoMisspelledMembers, getJobListBodySchema } from '@nap/contracts';
import type { JsonSchema } from '@nap/contracts';
import type { Handler } from '@nap/bus';
import type { Filter } from '@nap/store';
import { JOB_PAGE_DEFAULT_LIMIT, JOB_PAGE_MAX_LIMIT, checkSearchable, listFilter, withAfter } from '../domain/job-query';
import { JOB_COUNT_LIMIT, JOB_START_FIELD, jobSort } from '../domain/job-page';
import { toPublicJob, visibilityFilter } from '../domain/job-model';
import type { WorkflowContext } from '../context';

/** `POST /workflow_engine/getJobList/:status`: jobs of a status (or `all`) with options filter, page and sort. */
export function getJobList(svc: WorkflowContext): Handler<'workflow.getJobList'> {
  return async (input, ctx) => {
    const { status } = input.params;
    if (status !== 'all' && !JOB_STATUSES.some((known) => known === status)) {
      throw new AppError('VALIDATION_FAILED', `params.status "${status}" is unknown; use all or one of ${JOB_STATUSES.join(', ')}`, {
        details: [{ member: 'params.status', message: `must be all or one of ${JOB_STATUSES.join(', ')}` }],
      });
    }
    // an option misspelled (`filtr`, `Page`) would list every job of the status as if none was given
    assertNoMisspelledMembers(getJobListBodySchema as unknown as JsonSchema, input.body, 'body');
    const { filter, page, sort } = input.body.options;
    assertJsonDepth(filter, 'options.filter');
    const clauses: Filter[] = listFilter(filter);
    if (status !== 'all') clauses.push({ status: { $eq: status } });
    const visibility = visibilityFilter(ctx.caller);
    if (visibility) clauses.push(visibility);
    const where: Filter = clauses.length === 0 ? {} : { $and: clauses };
    const skip = page?.skip ?? 0;
    const limit = Math.min(page?.limit || JOB_PAGE_DEFAULT_LIMIT, JOB_PAGE_MAX_LIMIT);
    const field = sort?.field ? checkSearchable(sort.field, 'options.sort.field') : JOB_START_FIELD;
    const order = jobSort(field, sort?.direction ?? -1);
    const list = await svc.jobs.list({
      filter: where,
      pageFilter: withAfter(where, order, page?.after, 'options.page.after'),
      sort: order,
      skip,
      limit,
      countLimit: skip + JOB_COUNT_LIMIT,
    });
    return {
      results: list.items.map(toPublicJob),
      skip,
      // a list whose jobs' large values cut it short says how many it holds, so that skip + limit pages on without a gap
      limit: list.cutAtBytes === undefined ? limit : list.items.length,
      total: list.total,
      totalExact: list.totalExact,
      nextPageAfter: list.nextAfter,
    };
  };
}
