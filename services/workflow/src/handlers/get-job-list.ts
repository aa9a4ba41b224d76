import { AppError, JOB_STATUSES, assertJsonDepth } from '@nap/contracts';
import type { Handler } from '@nap/bus';
import type { Filter } from '@nap/store';
import { JOB_PAGE_DEFAULT_LIMIT, JOB_PAGE_MAX_LIMIT, checkField, listFilter } from '../domain/job-query';
import { toPublicJob, visibilityFilter } from '../domain/job-model';
import type { WorkflowContext } from '../context';

/** `POST /workflow_engine/getJobList/:status`: jobs of a status (or `all`) with options filter, page and sort. */
export function getJobList(svc: WorkflowContext): Handler<'workflow.getJobList'> {
  return async (input, ctx) => {
    const { status } = input.params;
    if (status !== 'all' && !JOB_STATUSES.some((known) => known === status)) {
      throw new AppError('VALIDATION_FAILED', `Status "${status}" is unknown; use all or one of ${JOB_STATUSES.join(', ')}`);
    }
    const { filter, page, sort } = input.body.options;
    assertJsonDepth(filter, 'options.filter');
    const clauses: Filter[] = listFilter(filter);
    if (status !== 'all') clauses.push({ status: { $eq: status } });
    const visibility = visibilityFilter(ctx.caller);
    if (visibility) clauses.push(visibility);
    const where: Filter = clauses.length === 0 ? {} : { $and: clauses };
    const skip = page?.skip ?? 0;
    const limit = Math.min(page?.limit || JOB_PAGE_DEFAULT_LIMIT, JOB_PAGE_MAX_LIMIT);
    const field = sort?.field ? checkField(sort.field, 'options.sort.field') : 'metrics.start_time';
    const { jobs, total } = await svc.jobs.list({ filter: where, sort: { [field]: sort?.direction ?? -1 }, skip, limit });
    return { results: jobs.map(toPublicJob), skip, limit, total };
  };
}
