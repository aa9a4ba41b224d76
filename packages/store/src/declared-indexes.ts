import { AppError } from '@nap/contracts';
import type { IndexCreation, IndexSpecDoc, IndexStatus } from '@nap/contracts';
import { normalizeIndexSpec, sameKeys } from './internal/index-spec';
import type { NormalizedIndexSpec } from './internal/index-spec';
import type { IndexSpec, Store } from './types';

/** The indexes a service declares, by collection name (the `*_COLLECTIONS` records of each service's `store/`). */
export type IndexDeclarations = Readonly<Record<string, readonly IndexSpec[]>>;

function sameOptions(a: NormalizedIndexSpec, b: NormalizedIndexSpec): boolean {
  return a.unique === b.unique && a.sparse === b.sparse;
}

function asDoc(spec: NormalizedIndexSpec): IndexSpecDoc {
  return { name: spec.name, keys: { ...spec.keys }, unique: spec.unique, sparse: spec.sparse };
}

/**
 * The declared indexes of one service's store, compared with what the store has and created on
 * demand, on MongoDB and the embedded store alike (`/indexes` of the admin service asks a replica of
 * the owning service for these).
 */
export class DeclaredIndexes {
  constructor(
    private readonly store: Store,
    private readonly declarations: IndexDeclarations,
  ) {}

  /** Every collection with declared indexes, and the indexes with their names filled in. */
  declared(): { collection: string; indexes: IndexSpecDoc[] }[] {
    return Object.entries(this.declarations)
      .filter(([, specs]) => specs.length > 0)
      .map(([collection, specs]) => ({ collection, indexes: specs.map((s) => asDoc(normalizeIndexSpec({ ...s, keys: { ...s.keys } }))) }))
      .sort((a, b) => a.collection.localeCompare(b.collection));
  }

  /**
   * The declared indexes next to the store's: `indexed` (present as declared), `misnamed` (the store
   * has the keys under another name, or the name with other keys or options), `missing`, and
   * `external` (in the store, declared by nobody).
   */
  async status(collection: string): Promise<Omit<IndexStatus, 'service'>> {
    const declared = this.specsOf(collection);
    const actual = (await this.store.collection(collection).listIndexes()).map((i) => normalizeIndexSpec(i));
    const matched = new Set<string>();
    const out: Omit<IndexStatus, 'service'> = { collection, missing: [], misnamed: [], external: [], indexed: [] };
    for (const want of declared) {
      const exact = actual.find((a) => a.name === want.name && sameKeys(a.keys, want.keys) && sameOptions(a, want));
      if (exact !== undefined) {
        matched.add(exact.name);
        out.indexed.push(asDoc(want));
        continue;
      }
      const other = actual.find((a) => !matched.has(a.name) && (sameKeys(a.keys, want.keys) || a.name === want.name));
      if (other !== undefined) {
        matched.add(other.name);
        out.misnamed.push({ expected: asDoc(want), actual: asDoc(other) });
      } else {
        out.missing.push(asDoc(want));
      }
    }
    out.external = actual.filter((a) => !matched.has(a.name)).map(asDoc);
    return out;
  }

  /** Creates the missing declared indexes and makes the misnamed ones again under their declared names; external ones stay. */
  async create(collection: string): Promise<Omit<IndexCreation, 'service'>> {
    const status = await this.status(collection);
    const target = this.store.collection(collection);
    for (const { actual } of status.misnamed) await target.dropIndex(actual.name ?? '');
    const wanted = [...status.missing, ...status.misnamed.map((m) => m.expected)];
    if (wanted.length > 0) await target.createIndexes(wanted.map((w) => ({ ...w, keys: { ...w.keys } })));
    return {
      collection,
      unchanged: status.indexed.length,
      changed: wanted.length,
      total: status.indexed.length + wanted.length,
      running: 0,
    };
  }

  private specsOf(collection: string): NormalizedIndexSpec[] {
    const specs = Object.hasOwn(this.declarations, collection) ? this.declarations[collection] : undefined;
    if (specs === undefined || specs.length === 0)
      throw new AppError('INDEX_COLLECTION_NOT_FOUND', `No indexes are declared for collection "${collection}"`);
    return specs.map((s) => normalizeIndexSpec({ ...s, keys: { ...s.keys } }));
  }
}
