import { AppError } from '@nap/contracts';
import type { Filter, SortSpec } from '@nap/store';

/**
 * How the job lists page through history at a cost that does not grow with it: a sort that an
 * index gives (every sort ends with `metrics.start_time` and `_id`, so the order is total), keyset
 * pages (`after`: the sort values and `_id` of the last job of a page, as an opaque token), and a
 * count that stops at {@link JOB_COUNT_LIMIT}. The indexes behind it are in `store/collections.ts`
 * and docs/indexes.md says which serves which query.
 */

/** The default sort field of the job lists, and the tie-breaker of every other sort. */
export const JOB_START_FIELD = 'metrics.start_time';

/**
 * The sort fields an index serves (docs/indexes.md): a page sorted by one of them reads only its
 * own jobs. Other fields are still accepted (the query language is open) but sort every match in
 * memory, and the page says so in `hints`.
 */
export const JOB_SORT_FIELDS = [JOB_START_FIELD, 'name', 'status', 'metrics.owner', 'created_by', 'metrics.run_time', '_id'] as const;

/**
 * Matches counted at most beyond the page's `skip`: `total` is exact up to it, and past it the
 * count stops (`totalExact: false`), so that a page of a filter matching most of a million jobs
 * costs what it costs at ten thousand. Counting 10,000 index keys takes about a millisecond.
 */
export const JOB_COUNT_LIMIT = 10_000;

/** A sort value a keyset token carries: what the served sort fields hold (missing reads as null). */
export type KeyValue = string | number | null;

function invalid(message: string): AppError {
  return new AppError('JOB_QUERY_INVALID', message);
}

/**
 * The sort of a job list by `field`: ties broken by the start time, then `_id`, in the same
 * direction, so that the order is total (keyset pages need it) and one index per field serves both
 * directions.
 */
export function jobSort(field: string, order: 1 | -1): SortSpec {
  if (field === '_id') return { _id: order };
  if (field === JOB_START_FIELD) return { [JOB_START_FIELD]: order, _id: order };
  return { [field]: order, [JOB_START_FIELD]: order, _id: order };
}

/** True when an index gives the order of `field` (see {@link JOB_SORT_FIELDS}). */
export function isServedSort(field: string): boolean {
  return (JOB_SORT_FIELDS as readonly string[]).includes(field);
}

/** The sort fields before `_id`, the ones a keyset token carries values of. */
function keyFields(sort: SortSpec): [string, 1 | -1][] {
  return Object.entries(sort).filter(([field]) => field !== '_id');
}

function valueAt(doc: Record<string, unknown>, path: string): unknown {
  let at: unknown = doc;
  for (const part of path.split('.')) {
    if (at === null || typeof at !== 'object' || Array.isArray(at)) return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}

/**
 * The keyset token of a job: its values of the sort fields and its `_id`, with the sort they were
 * taken for, as base64url JSON. Undefined when a value is neither text, a number nor missing (a
 * sort on a field of another type pages with `skip` only).
 */
export function afterToken(job: Record<string, unknown>, sort: SortSpec): string | undefined {
  const key = keyOf(job, sort);
  if (key === undefined) return undefined;
  return Buffer.from(JSON.stringify({ s: Object.entries(sort), v: key.values, id: key.id }), 'utf8').toString('base64url');
}

/** A job's values of the sort fields and its `_id`; undefined when a value is neither text, a number nor missing. */
function keyOf(job: Record<string, unknown>, sort: SortSpec): { values: KeyValue[]; id: string } | undefined {
  const values: KeyValue[] = [];
  for (const [field] of keyFields(sort)) {
    const value = valueAt(job, field);
    if (value === undefined || value === null) values.push(null);
    else if (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))) values.push(value);
    else return undefined;
  }
  if (typeof job._id !== 'string') return undefined;
  return { values, id: job._id };
}

/** The values of a keyset token made for `sort`; throws JOB_QUERY_INVALID when it was not. */
export function readAfterToken(token: string, sort: SortSpec, where: string): { values: KeyValue[]; id: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw invalid(`${where} is not a token this service made; use nextPageAfter of a page as it was returned`);
  }
  const record = parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
  const { s, v, id } = record;
  if (!Array.isArray(v) || typeof id !== 'string' || id === '' || !Array.isArray(s))
    throw invalid(`${where} is not a token this service made; use nextPageAfter of a page as it was returned`);
  if (JSON.stringify(s) !== JSON.stringify(Object.entries(sort)))
    throw invalid(`${where} was made for another sort or order; give the sort and order of the page it came from`);
  const fields = keyFields(sort);
  const values = v as unknown[];
  if (
    values.length !== fields.length ||
    !values.every((x) => x === null || typeof x === 'string' || (typeof x === 'number' && Number.isFinite(x)))
  )
    throw invalid(`${where} is not a token this service made; use nextPageAfter of a page as it was returned`);
  return { values: values as KeyValue[], id };
}

/**
 * Values of `field` strictly after `value` in direction `dir`, in MongoDB's order of types (null
 * and missing, then numbers, then text): each clause is a range or an equality an index bounds.
 */
function beyond(field: string, dir: 1 | -1, value: KeyValue): Filter[] {
  if (dir === 1) {
    if (value === null) return [{ [field]: { $gte: Number.NEGATIVE_INFINITY } }, { [field]: { $gte: '' } }];
    if (typeof value === 'number') return [{ [field]: { $gt: value } }, { [field]: { $gte: '' } }];
    return [{ [field]: { $gt: value } }];
  }
  if (value === null) return [];
  if (typeof value === 'number') return [{ [field]: { $lt: value } }, { [field]: null }];
  return [{ [field]: { $lt: value } }, { [field]: { $lte: Number.POSITIVE_INFINITY } }, { [field]: null }];
}

function equalTo(field: string, value: KeyValue): Filter {
  // null matches a missing field too, as the index keeps both in one place
  return value === null ? { [field]: null } : { [field]: { $eq: value } };
}

/**
 * The jobs after a keyset position in `sort` order: `{ $or: [...] }` of one branch per sort field
 * (equal on the fields before it, beyond it on this one) and one on `_id`. Every branch is bounded
 * by the sort's index, so the page reads only the keys after the position, however deep.
 */
export function keysetFilter(sort: SortSpec, values: KeyValue[], id: string): Filter {
  const fields = keyFields(sort);
  const idDir = sort._id ?? 1;
  const branches: Filter[] = [];
  const equal: Filter[] = [];
  fields.forEach(([field, dir], i) => {
    const value = values[i] ?? null;
    for (const clause of beyond(field, dir, value)) branches.push(equal.length === 0 ? clause : { $and: [...equal, clause] });
    equal.push(equalTo(field, value));
  });
  const last = { _id: { [idDir === 1 ? '$gt' : '$lt']: id } };
  branches.push(equal.length === 0 ? last : { $and: [...equal, last] });
  return { $or: branches };
}

/**
 * The jobs after `job` in `sort` order (see {@link keysetFilter}), for reading a list in batches;
 * undefined when a sort value of the job is neither text, a number nor missing.
 */
export function keysetAfterJob(job: Record<string, unknown>, sort: SortSpec): Filter | undefined {
  const key = keyOf(job, sort);
  return key === undefined ? undefined : keysetFilter(sort, key.values, key.id);
}
