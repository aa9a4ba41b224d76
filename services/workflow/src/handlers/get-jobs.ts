import type { Handler } from '@nap/bus';
import type { JobPage, JobQueryParameters } from '@nap/contracts';
import type { Collection } from '@nap/store';
import { buildJobQuery, pageLinks } from '../domain/job-query';
import type { JobRecord } from '../domain/job-model';
import { visibilityFilter } from '../domain/job-model';
import type { WorkflowHandlerContext } from './context';

/** Replaces ancestor ids (and the parent link) by `{ _id, name, status }` of those jobs. */
export async function dereferenceJobs(jobs: Collection<JobRecord>, items: Record<string, unknown>[], what: string[]): Promise<void> {
  if (what.length === 0) return;
  const ids = new Set<string>();
  for (const item of items) {
    if (what.includes('ancestors') && Array.isArray(item.ancestors)) for (const a of item.ancestors) if (typeof a === 'string') ids.add(a);
    const parent = item.parent as { job?: unknown } | undefined;
    if (what.includes('parent') && typeof parent?.job === 'string') ids.add(parent.job);
  }
  const found = new Map((await jobs.find({ _id: { $in: [...ids] } }, { projection: { _id: 1, name: 1, status: 1 } })).map((j) => [j._id, { _id: j._id, name: j.name, status: j.status }]));
  for (const item of items) {
    if (what.includes('ancestors') && Array.isArray(item.ancestors)) item.ancestors = item.ancestors.map((a: unknown) => (typeof a === 'string' ? (found.get(a) ?? { _id: a }) : a));
    const parent = item.parent as { job?: unknown } | undefined;
    if (what.includes('parent') && parent && typeof parent.job === 'string') item.parent = { ...parent, job: found.get(parent.job) ?? { _id: parent.job } };
  }
}

/** Operation 4: a page of jobs; every query member is translated by buildJobQuery, never passed through. */
export function getJobs(c: WorkflowHandlerContext): Handler<never, never, JobQueryParameters> {
  return async (input, ctx): Promise<JobPage> => {
    const query = buildJobQuery(input.query, visibilityFilter(ctx.caller));
    const [items, total] = await Promise.all([
      c.jobs.find(query.filter, { sort: query.sort, skip: query.skip, limit: query.limit, projection: query.projection }),
      c.jobs.countDocuments(query.filter),
    ]);
    const plain = items as unknown as Record<string, unknown>[];
    await dereferenceJobs(c.jobs, plain, query.dereference);
    return { items: plain, total, currentPageSize: items.length, hints: query.hints, skip: query.skip, limit: query.limit, ...pageLinks(query.skip, query.limit, total) };
  };
}
