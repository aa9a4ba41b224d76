import type { Collection, Doc, SortSpec } from '@nap/store';

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

/**
 * Gives the documents of `collection` stored before their sort key existed the key of their
 * `field` (found through the key's index, where they have none), each written only if its name did
 * not change meanwhile; how many. Run at start: once every document has one it reads one index key.
 */
export async function backfillSortKeys<T extends Doc>(collection: Collection<T>, field: string, key: string): Promise<number> {
  let updated = 0;
  for (const doc of await collection.find({ [key]: null }, { projection: { _id: 1, [field]: 1 } })) {
    const name = String(doc[field]);
    const res = await collection.updateOne({ _id: doc._id, [field]: name, [key]: null }, { $set: { [key]: sortKeyOf(name) } });
    updated += res.modifiedCount;
  }
  return updated;
}
