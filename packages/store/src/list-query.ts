import { AppError } from './internal/contracts';
import type { ListQueryOptions } from '@nap/contracts';
import { compileFilter, projectDocs, sortDocs } from './internal/embedded/mongo-semantics';
import type { Doc, Filter, Projection, SortSpec } from './types';

/**
 * The shared query options of the list routes (`contains`/`containsField`, `equals`/`equalsField`,
 * `startsWith`/`startsWithField`, each also field-wise as `equals[name]=x`; `skip`, `limit`, `sort`,
 * `order`) as a store query. Every list route uses it, over a collection (`find` with the filter)
 * or over a list made in memory ({@link listDocuments}). Only fields of an allow-list are filtered
 * or sorted on, and values are matched as text: a value never becomes an operator or a regular
 * expression of the caller's making.
 */

export const DEFAULT_LIST_LIMIT = 50;
export const MAX_LIST_LIMIT = 500;

export interface ListFields {
  /** Fields a filter may name; the first is the default when a value comes without its field. */
  filter: readonly string[];
  /** Fields a sort may name. */
  sort: readonly string[];
  defaultSort: SortSpec;
  /** Page size when the query gives none; {@link DEFAULT_LIST_LIMIT} unless set ("all" lists use {@link MAX_LIST_LIMIT}). */
  defaultLimit?: number;
}

export interface ListQuery {
  filter: Filter;
  sort: SortSpec;
  skip: number;
  limit: number;
}

/** `text` as a regular expression that matches it literally. */
export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function allowedField(field: string, fields: ListFields, member: string): string {
  if (!fields.filter.includes(field)) {
    throw new AppError('VALIDATION_FAILED', `${member} "${field}" cannot be filtered on; use one of ${fields.filter.join(', ')}`, {
      details: [{ member: `query.${member}`, message: `must be one of ${fields.filter.join(', ')}` }],
    });
  }
  return field;
}

/** `[field, value]` pairs of one operator: `equals=x&equalsField=f` or field-wise `equals[f]=x`. */
function pairs(
  value: string | Record<string, string> | undefined,
  field: string | undefined,
  operator: string,
  fields: ListFields,
): [string, string][] {
  if (value === undefined) return [];
  if (typeof value === 'object') return Object.entries(value).map(([f, v]) => [allowedField(f, fields, `${operator}[${f}]`), String(v)]);
  return [[allowedField(field ?? fields.filter[0] ?? 'name', fields, `${operator}Field`), String(value)]];
}

/** The store query of a list request. Throws 400 `VALIDATION_FAILED` for a field outside the allow-list. */
export function toListQuery(query: ListQueryOptions, fields: ListFields, extra: Filter[] = []): ListQuery {
  const clauses: Filter[] = [...extra];
  for (const [f, v] of pairs(query.equals, query.equalsField, 'equals', fields)) clauses.push({ [f]: { $eq: v } });
  for (const [f, v] of pairs(query.contains, query.containsField, 'contains', fields))
    clauses.push({ [f]: { $regex: escapeRegex(v), $options: 'i' } });
  for (const [f, v] of pairs(query.startsWith, query.startsWithField, 'startsWith', fields))
    clauses.push({ [f]: { $regex: `^${escapeRegex(v)}` } });
  let sort: SortSpec = fields.defaultSort;
  if (query.sort !== undefined) {
    if (!fields.sort.includes(query.sort)) {
      throw new AppError('VALIDATION_FAILED', `sort "${query.sort}" is not a sortable field; use one of ${fields.sort.join(', ')}`, {
        details: [{ member: 'query.sort', message: `must be one of ${fields.sort.join(', ')}` }],
      });
    }
    sort = { [query.sort]: query.order === -1 ? -1 : 1, _id: 1 };
  }
  const limit = Math.min(
    query.limit === undefined || query.limit === 0 ? (fields.defaultLimit ?? DEFAULT_LIST_LIMIT) : query.limit,
    MAX_LIST_LIMIT,
  );
  return { filter: clauses.length > 1 ? { $and: clauses } : (clauses[0] ?? {}), sort, skip: query.skip ?? 0, limit };
}

/**
 * A page of a list made in memory (health records, metrics), filtered and sorted with the same
 * MongoDB semantics as the stores: the items that match, sorted, after `skip`, at most `limit`.
 */
export function listDocuments<T extends Doc>(items: readonly T[], query: ListQuery): { items: T[]; total: number } {
  const matches = compileFilter(query.filter);
  const found = sortDocs(
    items.filter((item) => matches(item)),
    query.sort,
  );
  return { items: found.slice(query.skip, query.skip + query.limit), total: found.length };
}

/** `listDocuments` with a projection (MongoDB semantics) applied to the page: members left out or kept. */
export function listProjected(items: readonly Doc[], query: ListQuery & { projection?: Projection }): { items: Doc[]; total: number } {
  const page = listDocuments(items, query);
  return { items: query.projection === undefined ? page.items : projectDocs(page.items, query.projection), total: page.total };
}

/** `nextPageSkip` and `previousPageSkip` of a page (null at the ends). */
export function pageLinks(skip: number, limit: number, total: number): { nextPageSkip: number | null; previousPageSkip: number | null } {
  return { nextPageSkip: skip + limit < total ? skip + limit : null, previousPageSkip: skip > 0 ? Math.max(0, skip - limit) : null };
}
