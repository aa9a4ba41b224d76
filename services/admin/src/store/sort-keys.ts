import type { SortSpec } from '@nap/store';

/**
 * The key a name is listed by, letter case aside: its lower case (after Unicode NFC, so that the
 * same letters typed two ways sort together). Stored beside the name and indexed, so that both
 * stores sort `alice`, `Bob`, `zed` without a collation (the embedded store has none).
 */
export function sortKeyOf(name: string): string {
  return name.normalize('NFC').toLowerCase();
}

/**
 * The sort of a list with `field` read letter case aside: `field` is replaced by its stored
 * lower-case `key`, then the field itself and `_id` in the same direction, so that names that differ
 * only in case (`OLGA`, `olga`) keep one order (code point: capitals first) and the index
 * `{ key: 1, field: 1, _id: 1 }` serves the sort both ways (the store ends every sort with `_id`).
 * A sort on another field is left as it is.
 */
export function caseInsensitiveSort(sort: SortSpec, field: string, key: string): SortSpec {
  const direction = sort[field];
  if (direction === undefined) return sort;
  const out: SortSpec = {};
  for (const [name, d] of Object.entries(sort)) {
    if (name === field) {
      out[key] = direction;
      out[field] = direction;
    } else if (name !== '_id') out[name] = d;
  }
  out._id = direction;
  return out;
}
