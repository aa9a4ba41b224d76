import { hasCode } from '@nap/contracts';
import type { IndexSpec, Store } from '@nap/store';
import type { Logger } from '@nap/telemetry';

/** The index that keeps a form's `id` member (the id another platform gave it) to one form: forms without one are not indexed. */
export const FORM_ID_INDEX = 'id_1';

/** Collections of the studio service and their indexes, created at start. Names are unique per kind. */
export const STUDIO_COLLECTIONS = {
  workflows: [{ keys: { name: 1 }, unique: true }, { keys: { groups: 1 } }, { keys: { last_updated: -1 } }],
  templates: [{ keys: { name: 1 }, unique: true }],
  componentGroups: [{ keys: { name: 1 }, unique: true }],
  forms: [
    { keys: { name: 1 }, unique: true },
    { keys: { groups: 1 } },
    { name: FORM_ID_INDEX, keys: { id: 1 }, unique: true, sparse: true },
  ],
  projects: [{ keys: { name: 1 }, unique: true }, { keys: { 'importing.startedAt': 1 } }],
  transformations: [{ keys: { name: 1 }, unique: true }, { keys: { lastUpdated: -1 } }],
  tags: [{ keys: { name: 1 }, unique: true }, { keys: { deleting: 1 } }],
  tagReferences: [{ keys: { ref_id: 1 } }, { keys: { 'tags.tag_id': 1 } }, { keys: { type: 1 } }],
} as const satisfies Record<string, readonly IndexSpec[]>;

export type StudioCollection = keyof typeof STUDIO_COLLECTIONS;

/** Duplicate values a warning names at most, and the documents it names per value. */
const SHOWN_DUPLICATES = 20;
const SHOWN_DOCUMENTS = 5;

/**
 * Creates the declared indexes, one at a time. A unique index that the documents already stored
 * break (written by a release without it, or by two writes that raced past the check before it)
 * is not created: the start goes on, nothing is changed or removed, and a warning names the
 * duplicate values and their documents so that an operator can rename or delete all but one; the
 * index then shows as missing in `GET /indexes`, and `POST /indexes` (or the next start) makes it.
 * Any other failure stops the start.
 */
export async function ensureCollections(store: Store, log?: Logger): Promise<void> {
  for (const [name, indexes] of Object.entries(STUDIO_COLLECTIONS)) {
    const collection = store.collection(name);
    for (const spec of indexes as readonly IndexSpec[]) {
      try {
        await collection.createIndexes([{ ...spec, keys: { ...spec.keys } }]);
      } catch (err) {
        if (spec.unique !== true || !hasCode(err, 'STORE_DUPLICATE_KEY')) throw err;
        const duplicates = await duplicatesOf(store, name, Object.keys(spec.keys));
        log?.warn(
          {
            err,
            collection: name,
            index: spec.name ?? Object.entries(spec.keys).flat().join('_'),
            duplicates: duplicates.slice(0, SHOWN_DUPLICATES).map((d) => ({ ...d, documents: d.documents.slice(0, SHOWN_DOCUMENTS) })),
          },
          `The unique index on ${Object.keys(spec.keys).join(', ')} of ${name} is not made: ${duplicates.length} value(s) are held by more than one document (the first listed); rename or delete all but one of each, then POST /indexes or restart`,
        );
      }
    }
  }
}

/** The values of `fields` that more than one stored document holds, with those documents' ids and names. */
async function duplicatesOf(
  store: Store,
  collection: string,
  fields: readonly string[],
): Promise<{ value: unknown[]; documents: { _id: string; name?: unknown }[] }[]> {
  const docs = await store
    .collection(collection)
    .find(
      { $or: fields.map((f) => ({ [f]: { $exists: true } })) },
      { projection: Object.fromEntries([...fields, 'name'].map((f) => [f, 1])) },
    );
  const byValue = new Map<string, { value: unknown[]; documents: { _id: string; name?: unknown }[] }>();
  for (const doc of docs) {
    const value = fields.map((f) => (doc as Record<string, unknown>)[f] ?? null);
    const key = JSON.stringify(value);
    let entry = byValue.get(key);
    if (entry === undefined) byValue.set(key, (entry = { value, documents: [] }));
    entry.documents.push({ _id: String(doc._id), name: (doc as Record<string, unknown>).name });
  }
  return [...byValue.values()].filter((e) => e.documents.length > 1);
}
