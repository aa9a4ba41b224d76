import type { IndexSpec, Store } from '@nap/store';

/** Collections of the studio service and their indexes, created at start. Names are unique per kind. */
export const STUDIO_COLLECTIONS = {
  workflows: [{ keys: { name: 1 }, unique: true }, { keys: { groups: 1 } }, { keys: { last_updated: -1 } }],
  templates: [{ keys: { name: 1 }, unique: true }],
  componentGroups: [{ keys: { name: 1 }, unique: true }],
  forms: [{ keys: { name: 1 }, unique: true }, { keys: { groups: 1 } }],
  projects: [{ keys: { name: 1 }, unique: true }, { keys: { 'importing.startedAt': 1 } }],
  transformations: [{ keys: { name: 1 }, unique: true }, { keys: { lastUpdated: -1 } }],
  tags: [{ keys: { name: 1 }, unique: true }, { keys: { deleting: 1 } }],
  tagReferences: [{ keys: { ref_id: 1 } }, { keys: { 'tags.tag_id': 1 } }, { keys: { type: 1 } }],
} as const satisfies Record<string, readonly IndexSpec[]>;

export type StudioCollection = keyof typeof STUDIO_COLLECTIONS;

export async function ensureCollections(store: Store): Promise<void> {
  for (const [name, indexes] of Object.entries(STUDIO_COLLECTIONS)) {
    await store.collection(name).createIndexes(indexes.map((spec) => ({ ...spec, keys: { ...spec.keys } })));
  }
}
