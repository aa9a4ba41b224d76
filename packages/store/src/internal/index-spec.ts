import type { IndexSpec } from '../types';
import { badRequest } from './errors';

/** An index spec with its name and flags filled in, as `listIndexes` returns it. */
export interface NormalizedIndexSpec {
  name: string;
  keys: Record<string, 1 | -1>;
  unique: boolean;
  sparse: boolean;
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
  return { name, keys: { ...spec.keys }, unique: spec.unique === true, sparse: spec.sparse === true };
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
