import { redactSecrets } from '@nap/contracts';
import type { Handler } from '@nap/bus';
import { pageLinks } from '@nap/store';
import { isRecord } from '@nap/util';
import { buildJobQuery } from '../domain/job-query';
import { visibilityFilter } from '../domain/job-model';
import type { JobRepository } from '../store/job-repository';
import type { WorkflowContext } from '../context';

/** Replaces ancestor ids (and the parent link) by `{ _id, name, status }` of those jobs. */
async function dereferenceJobs(jobs: JobRepository, items: Record<string, unknown>[], what: string[]): Promise<void> {
  if (what.length === 0) return;
  const ids = new Set<string>();
  for (const item of items) {
    if (what.includes('ancestors') && Array.isArray(item.ancestors)) for (const a of item.ancestors) if (typeof a === 'string') ids.add(a);
    const { parent } = item;
    if (what.includes('parent') && isRecord(parent) && typeof parent.job === 'string') ids.add(parent.job);
  }
  const found = await jobs.summaries([...ids]);
  for (const item of items) {
    if (what.includes('ancestors') && Array.isArray(item.ancestors))
      item.ancestors = item.ancestors.map((a: unknown) => (typeof a === 'string' ? (found.get(a) ?? { _id: a }) : a));
    const { parent } = item;
    if (what.includes('parent') && isRecord(parent) && typeof parent.job === 'string')
      item.parent = { ...parent, job: found.get(parent.job) ?? { _id: parent.job } };
  }
}

/** `GET /operations-manager/jobs`: a page of jobs; every query member is translated by buildJobQuery, never passed through. */
export function getJobs(svc: WorkflowContext): Handler<'workflow.getJobs'> {
  return async (input, ctx) => {
    const query = buildJobQuery(input.query, visibilityFilter(ctx.caller));
    const { items, total } = await svc.jobs.page(query);
    await dereferenceJobs(svc.jobs, items, query.dereference);
    // the page is a projection of stored jobs: masked by the same policy as a whole job
    return {
      items: items.map((item) => redactSecrets(item)),
      total,
      currentPageSize: items.length,
      hints: query.hints,
      skip: query.skip,
      limit: query.limit,
      ...pageLinks(query.skip, query.limit, total),
    };
  };
}
