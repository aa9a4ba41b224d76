import { AppError, isSecretKey } from '@nap/contracts';
import type { JobQueryParameters } from '@nap/contracts';
import type { Filter, Projection, SortSpec } from '@nap/store';
import { INTERNAL_JOB_MEMBERS } from './job-model';
import { JOB_SORT_FIELDS, JOB_START_FIELD, isServedSort, jobSort, keysetFilter, readAfterToken } from './job-page';

/** Page size of `GET /operations-manager/jobs` when none is given. */
export const JOB_PAGE_DEFAULT_LIMIT = 25;
/**
 * Largest page: a job document carries every task of its workflow (tens of kilobytes), so 500 per
 * page keeps one answer within a few megabytes and one request within tens of milliseconds.
 */
export const JOB_PAGE_MAX_LIMIT = 500;

/** Operators of the flat query members and of `q` leaves. */
export const JOB_QUERY_OPERATORS = ['equals', 'contains', 'starts-with', 'ends-with', 'in', 'not-in', 'gt', 'gte', 'lt', 'lte'] as const;
type Operator = (typeof JOB_QUERY_OPERATORS)[number];

/** What may be dereferenced: ancestor job ids become `{ _id, name, status }`. */
export const DEREFERENCEABLE = ['ancestors', 'parent'] as const;

/**
 * A field path: letters, digits, `_` and `-` in dot-separated parts, starting with a letter or `_`.
 * A name such as `$where` or `a.$ne` is refused, so no user text ever becomes a store operator.
 */
const FIELD = /^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*$/;
/** Members that never leave the service, so they cannot be queried, sorted or projected either. */
const HIDDEN = new RegExp(`^(${INTERNAL_JOB_MEMBERS.join('|')})(\\.|$)`);
/** The projection that leaves them out. */
const WITHOUT_HIDDEN: Projection = Object.fromEntries(INTERNAL_JOB_MEMBERS.map((m) => [m, 0] as const));

function invalid(message: string): AppError {
  return new AppError('JOB_QUERY_INVALID', message);
}

/** Checks a field path of the query; throws JOB_QUERY_INVALID naming it. */
export function checkField(field: string, where: string): string {
  // a `__proto__` part names no member of a job (the store refuses it, and an object built with it drops the condition)
  if (!FIELD.test(field) || HIDDEN.test(field) || field.split('.').includes('__proto__')) {
    throw invalid(
      `${where} names the field ${JSON.stringify(field)}, which is not a field path (letters, digits, "_" and "-" parts joined by ".")`,
    );
  }
  return field;
}

/**
 * {@link checkField} for a field a query searches or sorts by: a member the secret policy calls
 * secret (`variables.password`, `variables.creds.api_token`) is refused too. Answers mask it, but a
 * search by it (`starts-with`, `contains`, a sort) would tell its value a character at a time.
 */
export function checkSearchable(field: string, where: string): string {
  checkField(field, where);
  const secret = field.split('.').find((part) => isSecretKey(part));
  if (secret !== undefined)
    throw invalid(
      `${where} names the member ${JSON.stringify(secret)}, which holds a secret: jobs cannot be searched or sorted by a secret`,
    );
  return field;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

type Scalar = string | number | boolean | null;

/** A query value as the store sees it: text that reads as a number or boolean matches both forms. */
function variants(value: Scalar): Scalar[] {
  if (typeof value !== 'string') return [value];
  const out: Scalar[] = [value];
  if (value.trim() !== '' && !Number.isNaN(Number(value))) out.push(Number(value));
  if (value === 'true' || value === 'false') out.push(value === 'true');
  if (value === 'null') out.push(null);
  return out;
}

function scalar(value: unknown, where: string): Scalar {
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  throw invalid(`${where} must be text, a number, a boolean or null, not ${Array.isArray(value) ? 'an array' : 'an object'}`);
}

function listOf(value: unknown, where: string): Scalar[] {
  if (Array.isArray(value)) return value.map((v, i) => scalar(v, `${where}[${i}]`));
  const text = scalar(value, where);
  if (typeof text !== 'string') return [text];
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function comparable(value: Scalar): Scalar {
  if (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))) return Number(value);
  return value;
}

/** One condition on one field, built from validated parts only (values are always operands). */
function condition(operator: Operator, field: string, value: unknown, where: string): Filter {
  checkSearchable(field, where);
  switch (operator) {
    case 'equals': {
      const all = variants(scalar(value, where));
      return all.length === 1 ? { [field]: { $eq: all[0] } } : { [field]: { $in: all } };
    }
    case 'in':
      return { [field]: { $in: listOf(value, where).flatMap(variants) } };
    case 'not-in':
      return { [field]: { $nin: listOf(value, where).flatMap(variants) } };
    case 'contains':
      return { [field]: { $regex: escapeRegex(String(scalar(value, where))), $options: 'i' } };
    case 'starts-with':
      return { [field]: { $regex: `^${escapeRegex(String(scalar(value, where)))}`, $options: 'i' } };
    case 'ends-with':
      return { [field]: { $regex: `${escapeRegex(String(scalar(value, where)))}$`, $options: 'i' } };
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return { [field]: { [`$${operator}`]: comparable(scalar(value, where)) } };
  }
}

function isOperator(name: string): name is Operator {
  return (JOB_QUERY_OPERATORS as readonly string[]).includes(name);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

const MAX_DEPTH = 12;

/**
 * The `q` expression: `{ "and": [e…] }`, `{ "or": [e…] }`, `{ "not": e }`, or a leaf
 * `{ "<operator>": { "<field>": value } }` with the operators of the flat members. Text that is not
 * a JSON object searches name and description (case-insensitive).
 */
export function parseQ(q: string): Filter {
  const text = q.trim();
  if (text === '') return {};
  if (!text.startsWith('{')) {
    const pattern = escapeRegex(text);
    return { $or: [{ name: { $regex: pattern, $options: 'i' } }, { description: { $regex: pattern, $options: 'i' } }] };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw invalid(`q is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  return expression(parsed, 'q', 0);
}

function expression(node: unknown, where: string, depth: number): Filter {
  if (depth > MAX_DEPTH) throw invalid(`q nests deeper than ${MAX_DEPTH} levels`);
  if (!isObject(node))
    throw invalid(`${where} must be an object such as {"and":[…]}, {"or":[…]}, {"not":…} or {"equals":{"status":"running"}}`);
  const keys = Object.keys(node);
  if (keys.length === 0) throw invalid(`${where} is an empty object`);
  const parts: Filter[] = [];
  for (const key of keys) {
    const value = node[key];
    const at = `${where}.${key}`;
    if (key === 'and' || key === 'or') {
      if (!Array.isArray(value) || value.length === 0) throw invalid(`${at} must be a non-empty array of expressions`);
      const list = value.map((item, i) => expression(item, `${at}[${i}]`, depth + 1));
      parts.push(key === 'and' ? { $and: list } : { $or: list });
    } else if (key === 'not') {
      parts.push({ $nor: [expression(value, at, depth + 1)] });
    } else if (isOperator(key)) {
      if (!isObject(value) || Object.keys(value).length === 0) throw invalid(`${at} must be an object of field to value`);
      for (const [field, v] of Object.entries(value)) parts.push(condition(key, field, v, `${at}.${field}`));
    } else {
      throw invalid(`${where} has the member ${JSON.stringify(key)}; use and, or, not or one of ${JOB_QUERY_OPERATORS.join(', ')}`);
    }
  }
  return parts.length === 1 ? (parts[0] as Filter) : { $and: parts };
}

/** The parsed job query: a store filter, sort, projection, page and the hints to show. */
export interface JobQuery {
  /** What the jobs of the list match (and what `total` counts). */
  filter: Filter;
  /** `filter` and, with `after`, the keyset position the page starts after. */
  pageFilter: Filter;
  sort: SortSpec;
  skip: number;
  limit: number;
  projection: Projection;
  dereference: string[];
  hints: string[];
}

function fieldList(text: string, where: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((f) => checkField(f, where));
}

/**
 * Translates the query members of `GET /operations-manager/jobs` into a store query; throws
 * JOB_QUERY_INVALID. `options.sortHints: false` leaves out the hint about sorts the job indexes do not
 * serve, for a list that is not of jobs (the task list sorts every match in memory whatever the sort).
 */
export function buildJobQuery(params: JobQueryParameters, visibility?: Filter, options: { sortHints?: boolean } = {}): JobQuery {
  const hints: string[] = [];
  const clauses: Filter[] = [];
  for (const operator of JOB_QUERY_OPERATORS) {
    const members = params[operator];
    if (members === undefined) continue;
    if (!isObject(members)) throw invalid(`${operator} must name fields, for example ${operator}[status]=running`);
    for (const [field, value] of Object.entries(members)) clauses.push(condition(operator, field, value, `${operator}[${field}]`));
  }
  if (params.q !== undefined) {
    const q = parseQ(params.q);
    if (Object.keys(q).length > 0) clauses.push(q);
  }
  if (visibility) clauses.push(visibility);
  const filter: Filter = clauses.length === 0 ? {} : clauses.length === 1 ? (clauses[0] as Filter) : { $and: clauses };

  let limit = params.limit ?? JOB_PAGE_DEFAULT_LIMIT;
  if (limit === 0) {
    limit = JOB_PAGE_DEFAULT_LIMIT;
    hints.push(`limit 0 means the default page size of ${JOB_PAGE_DEFAULT_LIMIT}`);
  }
  if (limit > JOB_PAGE_MAX_LIMIT) {
    hints.push(
      `limit ${limit} is above the maximum of ${JOB_PAGE_MAX_LIMIT} jobs per page (a job holds all its tasks); ${JOB_PAGE_MAX_LIMIT} are returned, use skip to page on`,
    );
    limit = JOB_PAGE_MAX_LIMIT;
  }
  const skip = params.skip ?? 0;
  const order = params.order ?? -1;
  const sortField = params.sort === undefined || params.sort === '' ? JOB_START_FIELD : checkSearchable(params.sort, 'sort');
  const sort = jobSort(sortField, order);
  if (options.sortHints !== false && !isServedSort(sortField))
    hints.push(
      `sort ${sortField} is not served by an index: every matching job is read to sort the page; sort by one of ${JOB_SORT_FIELDS.join(', ')} to keep pages fast in a long history`,
    );
  const pageFilter = withAfter(filter, sort, params.after, 'after');

  if (params.include !== undefined && params.exclude !== undefined)
    throw invalid('include and exclude cannot be used together; give one of them');
  let projection: Projection = { ...WITHOUT_HIDDEN };
  if (params.include !== undefined) {
    const fields = fieldList(params.include, 'include');
    if (fields.length > 0) projection = Object.fromEntries([...fields.map((f) => [f, 1] as const), ['_id', 1] as const]);
  } else if (params.exclude !== undefined) {
    projection = { ...Object.fromEntries(fieldList(params.exclude, 'exclude').map((f) => [f, 0] as const)), ...WITHOUT_HIDDEN };
  }
  const dereference =
    params.dereference === undefined
      ? []
      : params.dereference
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '');
  for (const d of dereference) {
    if (!(DEREFERENCEABLE as readonly string[]).includes(d))
      throw invalid(`dereference ${JSON.stringify(d)} is not supported; use ${DEREFERENCEABLE.join(' or ')}`);
  }
  return { filter, pageFilter, sort, skip, limit, projection, dereference, hints };
}

/** `filter` limited to the jobs after the keyset token `after` (none: `filter` as it is); throws JOB_QUERY_INVALID. */
export function withAfter(filter: Filter, sort: SortSpec, after: string | undefined, where: string): Filter {
  if (after === undefined || after === '') return filter;
  const { values, id } = readAfterToken(after, sort, where);
  const keyset = keysetFilter(sort, values, id);
  return Object.keys(filter).length === 0 ? keyset : { $and: [filter, keyset] };
}

/** Equality filter of getJobList's `options.filter`: field paths checked, values scalars only. */
export function listFilter(filter: Record<string, unknown> | undefined): Filter[] {
  return Object.entries(filter ?? {}).map(([field, value]) => condition('equals', field, value, `options.filter.${field}`));
}
