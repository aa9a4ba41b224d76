import { AppError } from './internal/contracts';
import type { IndexCreation, IndexSpecDoc, IndexStatus } from '@nap/contracts';
import { comparableIndex, normalizeIndexSpec, sameIndexOptions, sameKeys } from './internal/index-spec';
import type { NormalizedIndexSpec } from './internal/index-spec';
import type { Collection, IndexSpec, ListedIndex, Store } from './types';

/** The indexes a service declares, by collection name (the `*_COLLECTIONS` records of each service's `store/`). */
export type IndexDeclarations = Readonly<Record<string, readonly IndexSpec[]>>;

/**
 * A key field no document has: an index on the declared keys plus this field enforces the same
 * unique constraint (the extra key is null in every document), yet MongoDB sees another key
 * pattern, so it can stand beside the index it replaces while that one is dropped and made again.
 */
const BRIDGE_FIELD = '__nap_index_bridge';

function asDoc(spec: NormalizedIndexSpec | ListedIndex): IndexSpecDoc {
  const doc: IndexSpecDoc = { name: spec.name, keys: { ...spec.keys }, unique: spec.unique === true, sparse: spec.sparse === true };
  if (spec.partialFilterExpression !== undefined) doc.partialFilterExpression = spec.partialFilterExpression;
  if (spec.expireAfterSeconds !== undefined) doc.expireAfterSeconds = spec.expireAfterSeconds;
  if (spec.collation !== undefined) doc.collation = spec.collation;
  return doc;
}

function asSpec(spec: NormalizedIndexSpec): IndexSpec {
  const out: IndexSpec = { name: spec.name, keys: { ...spec.keys }, unique: spec.unique, sparse: spec.sparse };
  if (spec.partialFilterExpression !== undefined) out.partialFilterExpression = spec.partialFilterExpression;
  if (spec.expireAfterSeconds !== undefined) out.expireAfterSeconds = spec.expireAfterSeconds;
  if (spec.collation !== undefined) out.collation = spec.collation;
  return out;
}

/** An index of the store that stands in the way of a declared one: same keys or same name. */
interface Misfit {
  expected: NormalizedIndexSpec;
  actual: ListedIndex;
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
   * has the keys under another name, or the name with other keys or options: unique, sparse,
   * partial filter, TTL, collation), `missing`, and `external` (in the store, declared by nobody,
   * whatever its kind: text, hashed and geo indexes are listed there, never compared).
   */
  async status(collection: string): Promise<Omit<IndexStatus, 'service'>> {
    const { status } = await this.compare(collection);
    return status;
  }

  /**
   * Creates the missing declared indexes and makes the misnamed ones again under their declared
   * names; external ones stay. A declared unique index is never left unenforced meanwhile: before
   * the index in its way is dropped, a bridge index (the declared keys and one field no document
   * has, unique as declared) takes over the constraint, and it is dropped once the declared index
   * stands.
   */
  async create(collection: string): Promise<Omit<IndexCreation, 'service'>> {
    const { status, missing, misfits } = await this.compare(collection);
    const target = this.store.collection(collection);
    if (missing.length > 0) await target.createIndexes(missing.map(asSpec));
    for (const misfit of misfits) await this.replace(target, misfit);
    const changed = missing.length + misfits.length;
    return {
      collection,
      unchanged: status.indexed.length,
      changed,
      total: status.indexed.length + changed,
      running: 0,
    };
  }

  private async replace(target: Collection, { expected, actual }: Misfit): Promise<void> {
    const bridge: IndexSpec | undefined = expected.unique
      ? { ...asSpec(expected), name: `${expected.name}__bridge`, keys: { ...expected.keys, [BRIDGE_FIELD]: 1 } }
      : undefined;
    if (bridge !== undefined) await target.createIndexes([bridge]);
    await target.dropIndex(actual.name);
    await target.createIndexes([asSpec(expected)]);
    if (bridge?.name !== undefined) await target.dropIndex(bridge.name);
  }

  private async compare(
    collection: string,
  ): Promise<{ status: Omit<IndexStatus, 'service'>; missing: NormalizedIndexSpec[]; misfits: Misfit[] }> {
    const declared = this.specsOf(collection);
    const listed = await this.store.collection(collection).listIndexes();
    const actual = listed.flatMap((index) => {
      const comparable = comparableIndex(index);
      return comparable === undefined ? [] : [{ index, spec: comparable }];
    });
    const matched = new Set<string>();
    const misfits: Misfit[] = [];
    const missing: NormalizedIndexSpec[] = [];
    const status: Omit<IndexStatus, 'service'> = { collection, missing: [], misnamed: [], external: [], indexed: [] };
    for (const want of declared) {
      const exact = actual.find((a) => a.spec.name === want.name && sameKeys(a.spec.keys, want.keys) && sameIndexOptions(want, a.spec));
      if (exact !== undefined) {
        matched.add(exact.spec.name);
        status.indexed.push(asDoc(want));
        continue;
      }
      const other = actual.find((a) => !matched.has(a.spec.name) && (sameKeys(a.spec.keys, want.keys) || a.spec.name === want.name));
      if (other !== undefined) {
        matched.add(other.spec.name);
        misfits.push({ expected: want, actual: other.index });
        status.misnamed.push({ expected: asDoc(want), actual: asDoc(other.index) });
      } else {
        missing.push(want);
        status.missing.push(asDoc(want));
      }
    }
    status.external = listed.filter((index) => !matched.has(index.name)).map(asDoc);
    return { status, missing, misfits };
  }

  private specsOf(collection: string): NormalizedIndexSpec[] {
    const specs = Object.hasOwn(this.declarations, collection) ? this.declarations[collection] : undefined;
    if (specs === undefined || specs.length === 0)
      throw new AppError('INDEX_COLLECTION_NOT_FOUND', `No indexes are declared for collection "${collection}"`);
    return specs.map((spec) => normalizeIndexSpec({ ...spec, keys: { ...spec.keys } }));
  }
}
