import type { Query } from '../../api/http';
import { JOB_LIST_FIELDS, JOB_STATUSES } from '../../api/job-data';

/** Columns the table sorts by, and the job field each sorts on. */
export const SORT_FIELDS = {
  name: 'name',
  status: 'status',
  started: 'metrics.start_time',
  duration: 'metrics.run_time',
  startedBy: 'created_by',
} as const;
export type SortColumn = keyof typeof SORT_FIELDS;

export const PAGE_SIZES = [25, 50, 100] as const;

/** The jobs page's filters, sort and page: all kept in the URL, so that a reload or a shared link shows the same list. */
export interface JobListParams {
  status: string;
  workflow: string;
  /** The id of the trigger that started the jobs (a link from a job or an automation leads here). */
  trigger: string;
  /** Times on the engineer's clock, `2026-12-05T10:12` (see `readTime`; a `datetime-local` field's form, which older links hold). */
  after: string;
  before: string;
  sort: SortColumn;
  order: 'asc' | 'desc';
  page: number;
  limit: number;
}

function isSortColumn(value: string | null): value is SortColumn {
  return value !== null && Object.hasOwn(SORT_FIELDS, value);
}

export function readParams(search: URLSearchParams): JobListParams {
  const limit = Number(search.get('limit'));
  const page = Number(search.get('page'));
  const sort = search.get('sort');
  return {
    // a status the platform does not have filters nothing: it is dropped (and the URL with it)
    status: (JOB_STATUSES as readonly string[]).includes(search.get('status') ?? '') ? (search.get('status') ?? '') : '',
    workflow: search.get('workflow') ?? '',
    trigger: search.get('trigger') ?? '',
    after: search.get('after') ?? '',
    before: search.get('before') ?? '',
    sort: isSortColumn(sort) ? sort : 'started',
    order: search.get('order') === 'asc' ? 'asc' : 'desc',
    page: Number.isInteger(page) && page > 0 ? page : 1,
    limit: (PAGE_SIZES as readonly number[]).includes(limit) ? limit : 25,
  };
}

/** The URL of a list: only what differs from the default is written. */
export function writeParams(params: JobListParams): URLSearchParams {
  const search = new URLSearchParams();
  if (params.status) search.set('status', params.status);
  if (params.workflow) search.set('workflow', params.workflow);
  if (params.trigger) search.set('trigger', params.trigger);
  if (params.after) search.set('after', params.after);
  if (params.before) search.set('before', params.before);
  if (params.sort !== 'started') search.set('sort', params.sort);
  if (params.order !== 'desc') search.set('order', params.order);
  if (params.page !== 1) search.set('page', String(params.page));
  if (params.limit !== 25) search.set('limit', String(params.limit));
  return search;
}

/** True when the start range is empty: "Started after" is later than "Started before" (no job can match). */
export function emptyRange(params: Pick<JobListParams, 'after' | 'before'>): boolean {
  const after = epochOf(params.after);
  const before = epochOf(params.before);
  return after !== undefined && before !== undefined && after > before;
}

function epochOf(local: string): number | undefined {
  if (!local) return undefined;
  const ms = new Date(local).getTime();
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * The query of `GET /operations-manager/jobs` for a list: the platform filters, sorts and pages
 * (any number of jobs), and answers only the members the table shows.
 */
export function toJobQuery(params: JobListParams): Query {
  const after = epochOf(params.after);
  const before = epochOf(params.before);
  return {
    limit: params.limit,
    skip: (params.page - 1) * params.limit,
    sort: SORT_FIELDS[params.sort],
    order: params.order === 'asc' ? 1 : -1,
    include: JOB_LIST_FIELDS.join(','),
    equals:
      params.status || params.trigger
        ? { ...(params.status ? { status: params.status } : {}), ...(params.trigger ? { 'trigger._id': params.trigger } : {}) }
        : undefined,
    contains: params.workflow ? { name: params.workflow } : undefined,
    gte: after !== undefined ? { 'metrics.start_time': after } : undefined,
    lte: before !== undefined ? { 'metrics.start_time': before } : undefined,
  };
}
