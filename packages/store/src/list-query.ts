import { AppError } from '@nap/contracts';
import type { QueryOptions } from '@nap/contracts';
import type { Filter, SortSpec } from './types';

/**
 * Turns the list query of the list routes (`contains`/`containsField`, `equals`/`equalsField`,
 * `startsWith`/`startsWithField`, `skip`, `limit`, `sort`, `order`) into a store query. Only fields of
 * an allow-list are filtered or sorted on, and values are matched as text: a value never becomes an
 * operator or a regular expression of the caller's making.
 */

export const DEFAULT_LIST_LIMIT = 50;
export const MAX_LIST_LIMIT = 500;

export interface ListFields {
  /** Fields a filter may name; the first is the default when a value comes without its field. */
  filter: readonly string[];
  /** Fields a sort may name. */
  sort: readonly string[];
  defaultSort: SortSpec;
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

function fieldOf(given: string | undefined, fields: ListFields, member: string): string {
  const field = given ?? fields.filter[0] ?? 'name';
  if (!fields.filter.includes(field)) {
    throw new AppError('VALIDATION_FAILED', `${member} "${field}" cannot be filtered on; use one of ${fields.filter.join(', ')}`, {
      details: [{ member: `query.${member}`, message: `must be one of ${fields.filter.join(', ')}` }],
    });
  }
  return field;
}

/** The store query of a list request. Throws 400 `VALIDATION_FAILED` for a field outside the allow-list. */
export function toListQuery(query: QueryOptions, fields: ListFields): ListQuery {
  const clauses: Filter[] = [];
  if (query.equals !== undefined) clauses.push({ [fieldOf(query.equalsField, fields, 'equalsField')]: { $eq: String(query.equals) } });
  if (query.contains !== undefined) clauses.push({ [fieldOf(query.containsField, fields, 'containsField')]: { $regex: escapeRegex(String(query.contains)), $options: 'i' } });
  if (query.startsWith !== undefined) clauses.push({ [fieldOf(query.startsWithField, fields, 'startsWithField')]: { $regex: `^${escapeRegex(String(query.startsWith))}` } });
  let sort: SortSpec = fields.defaultSort;
  if (query.sort !== undefined) {
    if (!fields.sort.includes(query.sort)) {
      throw new AppError('VALIDATION_FAILED', `sort "${query.sort}" is not a sortable field; use one of ${fields.sort.join(', ')}`, {
        details: [{ member: 'query.sort', message: `must be one of ${fields.sort.join(', ')}` }],
      });
    }
    sort = { [query.sort]: query.order === -1 ? -1 : 1, _id: 1 };
  }
  const limit = Math.min(query.limit === undefined || query.limit === 0 ? DEFAULT_LIST_LIMIT : query.limit, MAX_LIST_LIMIT);
  return { filter: clauses.length > 1 ? { $and: clauses } : (clauses[0] ?? {}), sort, skip: query.skip ?? 0, limit };
}
