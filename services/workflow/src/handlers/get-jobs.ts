import { redactSecrets } from '@nap/contracts';
import type { Handler } from '@nap/bus';
import { isRecord } from '@nap/util';
import { buildJobQuery } from '../domain/job-query';
import { JOB_COUNT_LIMIT } from '../domain/job-page';
import { visibilityFilter } from '../domain/job-model';
import { maskPageSecrets, projectsWholeVariables, withSecretInputs } from '../domain/job-secrets';
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

/** The hint of a page whose count stopped at its limit. */
function countStoppedHint(total: number): string {
  return `more than ${total} jobs match: total stops counting there (totalExact is false); page on with nextPageAfter or narrow the query`;
}

function sizeText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / (1024 * 1024))} MiB` : `${Math.round(bytes / 1024)} KiB`;
}

/** The hint of a page that holds fewer jobs than its limit because of the size of their values. */
function pageCutHint(held: number, limit: number, bytes: number): string {
  return (
    `the page holds ${held} of the ${limit} jobs asked for: their task outputs and variables add up to more than ${sizeText(bytes)}, ` +
    'the most a page carries; page on with nextPageSkip or nextPageAfter, or leave them out (exclude=tasks,variables)'
  );
}

/** `GET /operations-manager/jobs`: a page of jobs; every query member is translated by buildJobQuery, never passed through. */
export function getJobs(svc: WorkflowContext): Handler<'workflow.getJobs'> {
  return async (input, ctx) => {
    const query = buildJobQuery(input.query, visibilityFilter(ctx.caller));
    const page = await svc.jobs.page({
      ...query,
      projection: withSecretInputs(query.projection),
      countLimit: query.skip + JOB_COUNT_LIMIT,
    });
    // the secrets the jobs started with, from their variables (read again where the page left some out)
    const items = await maskPageSecrets(
      page.items,
      projectsWholeVariables(query.projection) ? undefined : (ids) => svc.jobs.findByIds(ids),
    );
    await dereferenceJobs(svc.jobs, items, query.dereference);
    if (!page.totalExact) query.hints.push(countStoppedHint(page.total));
    if (page.cutAtBytes !== undefined) query.hints.push(pageCutHint(items.length, query.limit, page.cutAtBytes));
    // the page is a projection of stored jobs: masked by the same policy as a whole job
    return {
      items: items.map((item) => redactSecrets(item)),
      total: page.total,
      totalExact: page.totalExact,
      currentPageSize: items.length,
      hints: query.hints,
      skip: query.skip,
      limit: query.limit,
      // the spec types both as integers: where there is no such page (the last, the first) the member is left out
      // after the jobs the page holds: fewer than limit when their large values cut it short
      ...(page.hasMore ? { nextPageSkip: query.skip + items.length } : {}),
      ...(query.skip > 0 ? { previousPageSkip: Math.max(0, query.skip - query.limit) } : {}),
      nextPageAfter: page.nextAfter,
    };
  };
}
