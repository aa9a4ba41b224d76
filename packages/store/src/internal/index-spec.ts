import { isDeepStrictEqual } from 'node:util';
import { isPlainObject } from '@nap/util';
import type { Filter, IndexSpec, ListedIndex } from '../types';
import { badRequest } from './errors';

/** An index spec with its name and flags filled in, as `listIndexes` returns it. */
export interface NormalizedIndexSpec {
  name: string;
  keys: Record<string, 1 | -1>;
  unique: boolean;
  sparse: boolean;
  partialFilterExpression?: Filter;
  expireAfterSeconds?: number;
  collation?: Record<string, unknown>;
}

/** The options of a spec beyond keys, name, unique and sparse (MongoDB's). */
function extraOptions(
  spec: Omit<IndexSpec, 'keys'>,
): Pick<NormalizedIndexSpec, 'partialFilterExpression' | 'expireAfterSeconds' | 'collation'> {
  const out: Pick<NormalizedIndexSpec, 'partialFilterExpression' | 'expireAfterSeconds' | 'collation'> = {};
  if (spec.partialFilterExpression !== undefined) {
    if (!isPlainObject(spec.partialFilterExpression)) throw badRequest('An index partialFilterExpression must be a filter object');
    out.partialFilterExpression = spec.partialFilterExpression;
  }
  if (spec.expireAfterSeconds !== undefined) {
    if (!Number.isInteger(spec.expireAfterSeconds) || spec.expireAfterSeconds < 0)
      throw badRequest(`An index expireAfterSeconds must be a whole number of seconds; got ${String(spec.expireAfterSeconds)}`);
    out.expireAfterSeconds = spec.expireAfterSeconds;
  }
  if (spec.collation !== undefined) {
    if (!isPlainObject(spec.collation) || typeof spec.collation.locale !== 'string')
      throw badRequest('An index collation must be an object with a locale');
    out.collation = spec.collation;
  }
  return out;
}

/** True when the spec has options only MongoDB has (partial, TTL, collation). */
export function hasMongoOnlyOptions(spec: NormalizedIndexSpec): boolean {
  return spec.partialFilterExpression !== undefined || spec.expireAfterSeconds !== undefined || spec.collation !== undefined;
}

/**
 * A listed index as a spec to compare, or undefined for a kind NAP does not manage (a key that is
 * not 1 or -1: text, hashed, 2dsphere): such an index can only be external.
 */
export function comparableIndex(index: ListedIndex): NormalizedIndexSpec | undefined {
  const entries = Object.entries(index.keys);
  if (entries.length === 0 || !entries.every(([, d]) => d === 1 || d === -1)) return undefined;
  return {
    name: index.name,
    keys: Object.fromEntries(entries) as Record<string, 1 | -1>,
    unique: index.unique === true,
    sparse: index.sparse === true,
    ...extraOptions(index),
  };
}

/**
 * True when an index built as `actual` is what `wanted` declares, beyond its keys: the same unique,
 * sparse, partial filter and TTL, and a collation that has every setting `wanted` names (MongoDB
 * lists a collation with its defaults filled in).
 */
export function sameIndexOptions(wanted: NormalizedIndexSpec, actual: NormalizedIndexSpec): boolean {
  if (wanted.unique !== actual.unique || wanted.sparse !== actual.sparse) return false;
  if (wanted.expireAfterSeconds !== actual.expireAfterSeconds) return false;
  if (!isDeepStrictEqual(wanted.partialFilterExpression, actual.partialFilterExpression)) return false;
  if (wanted.collation === undefined || actual.collation === undefined) return wanted.collation === actual.collation;
  const listed = actual.collation;
  return Object.entries(wanted.collation).every(([k, v]) => isDeepStrictEqual(listed[k], v));
}

/** MongoDB's default index name: `field_1_other_-1`. */
export function defaultIndexName(keys: Record<string, 1 | -1>): string {
  return Object.entries(keys)
    .map(([field, direction]) => `${field}_${direction}`)
    .join('_');
}

/** Validates a spec and fills in its defaults; throws `BAD_REQUEST` for an unusable one. */
export function normalizeIndexSpec(spec: IndexSpec): NormalizedIndexSpec {
  const entries = Object.entries(spec.keys ?? {});
  if (entries.length === 0) throw badRequest('An index needs at least one key field');
  for (const [field, direction] of entries) {
    if (field === '' || field.startsWith('$') || field.split('.').some((part) => part === '')) {
      throw badRequest(`Index key field "${field}" is not a valid field path`);
    }
    if (direction !== 1 && direction !== -1) {
      throw badRequest(`Index key field "${field}" has direction ${String(direction)}; use 1 or -1`);
    }
  }
  const name = spec.name ?? defaultIndexName(spec.keys);
  if (name === '' || name === '_id_') throw badRequest(`Index name "${name}" is reserved or empty`);
  return { name, keys: { ...spec.keys }, unique: spec.unique === true, sparse: spec.sparse === true, ...extraOptions(spec) };
}

/** True for a spec that only restates the built-in `_id` index. */
export function isIdIndex(spec: NormalizedIndexSpec): boolean {
  const fields = Object.keys(spec.keys);
  return fields.length === 1 && fields[0] === '_id';
}

export function sameKeys(a: Record<string, 1 | -1>, b: Record<string, 1 | -1>): boolean {
  const ea = Object.entries(a);
  const eb = Object.entries(b);
  return ea.length === eb.length && ea.every(([field, direction], i) => eb[i]?.[0] === field && eb[i]?.[1] === direction);
}
