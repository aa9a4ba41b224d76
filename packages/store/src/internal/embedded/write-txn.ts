/**
 * Document and index writes inside one LMDB transaction. Every check (MongoDB's 16 MiB document
 * limit, unique keys, `_id` clashes, parallel arrays) for a document runs before any of its keys is written, and the whole
 * operation runs in an abortable child transaction, so a refused write leaves nothing behind.
 */
import type { Database } from 'lmdb';
import type { Doc } from '../../types';
import { conflict, duplicateKey } from '../errors';
import { sameKeys, type NormalizedIndexSpec } from '../index-spec';
import { checkDocumentSize } from '../parity';
import { CATALOG_KEY, collectionDef, type Catalog, type CollectionDef, type IndexDef } from './catalog';
import { decodeDoc, decodeMembers, encodeDoc, type EncodedDoc } from './doc-codec';
import { isEqual } from 'mingo/util';
import { collectValues, entriesOfValues, indexEntries, type Collected, type Entry } from './index-entries';
import { numberPrefix, successor } from './key-codec';
import { sameKeyValue } from './mongo-semantics';
import { docKey, type StoreDbs } from './query-exec';

const EMPTY = Buffer.alloc(0);

/** The databases a write touches. */
export interface WriteDbs extends StoreDbs {
  meta: Database<unknown, string>;
}

/** {@link indexMembers} of a collection, with what its indexes were when they were made (see {@link indexSignature}). */
interface IndexMembers {
  signature: (string | number)[];
  members: ReadonlySet<string>;
}

/** {@link indexMembers} by store (its databases) and collection name. */
const indexMembersCache = new WeakMap<WriteDbs, Map<string, IndexMembers>>();

/** Each index of `indexes` as its number, its count of fields and their paths, in order. */
function indexSignature(indexes: readonly IndexDef[]): (string | number)[] {
  const signature: (string | number)[] = [];
  for (const index of indexes) {
    signature.push(index.no, index.fields.length);
    for (const field of index.fields) signature.push(field.path);
  }
  return signature;
}

/** True when `indexes` are those `signature` was made of ({@link indexSignature}), compared without making theirs. */
function hasSignature(indexes: readonly IndexDef[], signature: readonly (string | number)[]): boolean {
  let at = 0;
  for (const index of indexes) {
    if (signature[at] !== index.no || signature[at + 1] !== index.fields.length) return false;
    at += 2;
    for (const field of index.fields) if (signature[at++] !== field.path) return false;
  }
  return at === signature.length;
}

/**
 * The top-level members the indexes of a collection name, and `_id`. Every insert asks, and each
 * write batch decodes the catalog afresh: kept per store and collection, and made again when the
 * collection's indexes are not those it was made from (an index made or dropped). Index numbers
 * and paths are compared, not objects: a number taken by a write that was rolled back may name
 * another index later.
 */
function indexMembers(dbs: WriteDbs, collection: CollectionDef): ReadonlySet<string> {
  let byName = indexMembersCache.get(dbs);
  if (byName === undefined) {
    byName = new Map();
    indexMembersCache.set(dbs, byName);
  }
  const cached = byName.get(collection.name);
  if (cached !== undefined && hasSignature(collection.indexes, cached.signature)) return cached.members;
  const members = new Set<string>(['_id']);
  for (const index of collection.indexes) for (const field of index.fields) members.add(field.path.split('.')[0] as string);
  byName.set(collection.name, { signature: indexSignature(collection.indexes), members });
  return members;
}

export function keysOf(index: IndexDef): Record<string, 1 | -1> {
  return Object.fromEntries(index.fields.map((f) => [f.path, f.direction]));
}

function entryKey(entry: Entry, id: string): Buffer {
  const { prefix } = entry;
  const key = Buffer.allocUnsafe(prefix.length + Buffer.byteLength(id, 'utf8'));
  prefix.copy(key, 0);
  key.write(id, prefix.length, 'utf8');
  return key;
}

/** True when two documents share a key of `index` (missing counts as null). */
function shareKey(a: Doc, b: Doc, index: IndexDef): boolean {
  return index.fields.every((field) => {
    const va = collectValues(a, field.path).values;
    const vb = collectValues(b, field.path).values;
    return va.some((x) => vb.some((y) => sameKeyValue(x, y)));
  });
}

/**
 * What a document holds for the indexes of its collection, taken before an update changes it in
 * place (see {@link WriteTxn.snapshotOf}): the values of every indexed path, and the entries of the
 * indexes whose values an in-place change could reach (objects, arrays); the entries of the others
 * are made from the values only when an index changed.
 */
export interface IndexSnapshot {
  valuesOf: (path: string) => Collected;
  /** The indexes it was taken for: the collection's, or those a write's changes can reach. */
  indexes: IndexDef[];
  /** By position in `indexes`: the entries taken at once, or undefined where the values suffice. */
  entries: (Entry[] | undefined)[];
}

function isSnapshot(before: Doc | IndexSnapshot): before is IndexSnapshot {
  return typeof (before as IndexSnapshot).valuesOf === 'function' && Array.isArray((before as IndexSnapshot).entries);
}

/** True when an in-place update could change what `values` hold (they are not all primitives). */
function reachable(values: Collected): boolean {
  return values.values.some((v) => typeof v === 'object' && v !== null);
}

interface IndexChange {
  index: IndexDef;
  remove: Entry[];
  add: Entry[];
  multikeyPaths: string[];
}

/** {@link collectValues} of one document, each path walked once however many indexes name it. */
function valuesCache(doc: Doc | undefined): (path: string) => Collected {
  const cache = new Map<string, Collected>();
  return (path) => {
    let found = cache.get(path);
    if (!found) {
      found = collectValues(doc, path);
      cache.set(path, found);
    }
    return found;
  };
}

function sameValues(a: Collected, b: Collected): boolean {
  return a.present === b.present && a.sawArray === b.sawArray && isEqual(a.values, b.values);
}

export class WriteTxn {
  private dirty = false;
  /** Documents this operation added (or removed, negative) by collection name: counts change without a catalog write of their own. */
  readonly countChanges = new Map<string, number>();

  constructor(
    readonly dbs: WriteDbs,
    readonly catalog: Catalog,
  ) {}

  collection(name: string): CollectionDef | undefined {
    return collectionDef(this.catalog, name);
  }

  ensureCollection(name: string): CollectionDef {
    const existing = collectionDef(this.catalog, name);
    if (existing) return existing;
    const created: CollectionDef = { name, no: this.catalog.nextNo++, indexes: [], count: 0 };
    this.catalog.collections[name] = created;
    this.dirty = true;
    return created;
  }

  /**
   * Writes the catalog if the operation changed what it describes (collections, indexes); call
   * last. Answers whether it wrote it. A change of document counts alone is left to the batch
   * (see {@link countChanges}), which writes the catalog once for all its operations.
   */
  finish(): boolean {
    if (this.dirty) this.dbs.meta.putSync(CATALOG_KEY, this.catalog);
    return this.dirty;
  }

  private changeCount(collection: CollectionDef, by: number): void {
    collection.count += by;
    this.countChanges.set(collection.name, (this.countChanges.get(collection.name) ?? 0) + by);
  }

  private checkUnique(collection: CollectionDef, index: IndexDef, entry: Entry, doc: Doc): void {
    const end = successor(entry.prefix) as Buffer;
    for (const key of this.dbs.idx.getKeys({ start: entry.prefix, end })) {
      const otherId = key.toString('utf8', entry.prefix.length);
      if (otherId === doc._id) continue;
      if (!entry.exact) {
        const stored = this.dbs.docs.get(docKey(collection, otherId));
        if (stored === undefined || !shareKey(doc, decodeDoc(stored), index)) continue;
      }
      const keyValue = Object.fromEntries(index.fields.map((f, i) => [f.path, entry.values[i] ?? null]));
      throw duplicateKey(collection.name, { index: index.name, key: keyValue });
    }
  }

  /**
   * What a document holds for each index of the collection: taken before an update changes the
   * document in place, it stands for its old version in {@link replace}. Only the values of the
   * indexed paths are taken, and the entries of the indexes that hold objects or arrays (which the
   * update could change in place): an update that leaves an index's values as they were (the
   * common case: the engine's writes change tasks and variables, not the fields the lists sort by)
   * never makes that index's entries.
   */
  snapshotOf(collection: CollectionDef, doc: Doc, indexes: IndexDef[] = collection.indexes): IndexSnapshot {
    const valuesOf = valuesCache(doc);
    const entries = indexes.map((index) => {
      const values = index.fields.map((f) => valuesOf(f.path));
      return values.some(reachable) ? entriesOfValues(index, valuesOf).entries : undefined;
    });
    return { valuesOf, indexes, entries };
  }

  /** Computes the entry changes of every index for `before` → `after` and checks them; writes nothing. */
  private planIndexes(collection: CollectionDef, before: Doc | IndexSnapshot | undefined, after: Doc | undefined): IndexChange[] {
    const changes: IndexChange[] = [];
    const snapshot = before !== undefined && isSnapshot(before) ? before : undefined;
    const beforeValues = before === undefined ? undefined : snapshot !== undefined ? snapshot.valuesOf : valuesCache(before as Doc);
    const afterValues = valuesCache(after);
    // a snapshot taken for some indexes only: the write changes nothing the others hold
    for (const [i, index] of (snapshot?.indexes ?? collection.indexes).entries()) {
      // entries taken at once stand for values an in-place update may have changed under the snapshot: compared as entries
      const taken = snapshot?.entries[i];
      // An update that leaves every field of an index as it was leaves its entries too.
      if (taken === undefined && beforeValues && after && index.fields.every((f) => sameValues(beforeValues(f.path), afterValues(f.path))))
        continue;
      const old = beforeValues === undefined ? [] : (taken ?? entriesOfValues(index, beforeValues).entries);
      const next = after ? indexEntries(after, index, afterValues) : { entries: [], multikey: false, multikeyPaths: [] };
      if (old.length === 0) {
        // a new document (or one the index held nothing of): every entry is added
        if (index.unique && after) for (const entry of next.entries) this.checkUnique(collection, index, entry, after);
        changes.push({ index, remove: [], add: next.entries, multikeyPaths: next.multikeyPaths });
        continue;
      }
      const oldTags = new Set(old.map((e) => e.prefix.toString('latin1')));
      const nextTags = new Set(next.entries.map((e) => e.prefix.toString('latin1')));
      const remove = old.filter((e) => !nextTags.has(e.prefix.toString('latin1')));
      const add = next.entries.filter((e) => !oldTags.has(e.prefix.toString('latin1')));
      if (index.unique && after) for (const entry of add) this.checkUnique(collection, index, entry, after);
      changes.push({ index, remove, add, multikeyPaths: next.multikeyPaths });
    }
    return changes;
  }

  private applyIndexes(id: string, changes: IndexChange[]): void {
    for (const change of changes) {
      for (const entry of change.remove) this.dbs.idx.removeSync(entryKey(entry, id));
      for (const entry of change.add) this.dbs.idx.putSync(entryKey(entry, id), EMPTY);
      this.markMultikey(change.index, change.multikeyPaths);
    }
  }

  private markMultikey(index: IndexDef, paths: string[]): void {
    if (paths.length === 0) return;
    const known = index.multikey ? index.multikeyPaths : [];
    // a catalog from before multikeyPaths were kept: every field stays multikey
    if (known === undefined) return;
    const added = paths.filter((p) => !known.includes(p));
    if (added.length === 0 && index.multikey) return;
    index.multikey = true;
    index.multikeyPaths = [...known, ...added];
    this.dirty = true;
  }

  /** Inserts a document; `plain` when it is known to hold only values JSON carries (see {@link encodeDoc}). */
  insert(collection: CollectionDef, doc: Doc, plain = false): void {
    const key = docKey(collection, doc._id);
    const encoded = encodeDoc(doc, plain);
    checkDocumentSize(collection.name, doc, encoded.length);
    if (this.dbs.docs.doesExist(key)) throw duplicateKey(collection.name, { index: '_id_', key: { _id: doc._id } });
    const changes = this.planIndexes(collection, undefined, doc);
    this.applyIndexes(doc._id, changes);
    this.dbs.docs.putSync(key, encoded);
    this.changeCount(collection, 1);
  }

  /**
   * Inserts a document given as its stored text (see `encodeDocWithMembers`), encoded when the
   * caller asked: only the members the indexes name are decoded, for their entries, from the
   * header the encoder wrote.
   */
  insertEncoded(collection: CollectionDef, id: string, encoded: EncodedDoc): void {
    const key = docKey(collection, id);
    const { text, members } = encoded;
    checkDocumentSize(collection.name, () => decodeDoc(text), text.length);
    if (this.dbs.docs.doesExist(key)) throw duplicateKey(collection.name, { index: '_id_', key: { _id: id } });
    const indexed = members === undefined ? decodeDoc(text) : decodeMembers(members, indexMembers(this.dbs, collection));
    const changes = this.planIndexes(collection, undefined, indexed);
    this.applyIndexes(id, changes);
    this.dbs.docs.putSync(key, text);
    this.changeCount(collection, 1);
  }

  /** Replaces a document; `before` is its old version, or what it held for the indexes (see {@link snapshotOf}). */
  replace(collection: CollectionDef, before: Doc | IndexSnapshot, after: Doc): void {
    const encoded = encodeDoc(after);
    checkDocumentSize(collection.name, after, encoded.length);
    const changes = this.planIndexes(collection, before, after);
    this.applyIndexes(after._id, changes);
    this.dbs.docs.putSync(docKey(collection, after._id), encoded);
  }

  /**
   * Replaces a document with its new `encoded` text (see `encodeChangedMembers`): `before` is what
   * the old version held for the indexes the write can change (see {@link snapshotOf}), `after`
   * holds (at least) the document's `_id` and the members those indexes name.
   */
  replaceEncoded(collection: CollectionDef, before: IndexSnapshot, after: Doc, encoded: string): void {
    checkDocumentSize(collection.name, () => decodeDoc(encoded), encoded.length);
    const changes = this.planIndexes(collection, before, after);
    this.applyIndexes(after._id, changes);
    this.dbs.docs.putSync(docKey(collection, after._id), encoded);
  }

  remove(collection: CollectionDef, doc: Doc): void {
    const changes = this.planIndexes(collection, doc, undefined);
    this.applyIndexes(doc._id, changes);
    this.dbs.docs.removeSync(docKey(collection, doc._id));
    this.changeCount(collection, -1);
  }

  /** Drops an index and its entries; returns false when the collection has no index of that name. */
  dropIndex(collection: CollectionDef, name: string): boolean {
    const at = collection.indexes.findIndex((i) => i.name === name);
    const index = collection.indexes[at];
    if (index === undefined) return false;
    const prefix = numberPrefix(index.no);
    // collected first: the range is not changed while it is read
    const keys = [...this.dbs.idx.getKeys({ start: prefix, end: successor(prefix) as Buffer })];
    for (const key of keys) this.dbs.idx.removeSync(key);
    collection.indexes.splice(at, 1);
    this.dirty = true;
    return true;
  }

  /** Creates an index over the existing documents; returns false when it already exists. */
  createIndex(collection: CollectionDef, spec: NormalizedIndexSpec): boolean {
    const same = collection.indexes.find((i) => i.name === spec.name);
    if (same) {
      if (sameKeys(keysOf(same), spec.keys) && same.unique === spec.unique && same.sparse === spec.sparse) return false;
      throw conflict(`Collection "${collection.name}" already has an index named "${spec.name}" with other keys or options`);
    }
    const twin = collection.indexes.find((i) => sameKeys(keysOf(i), spec.keys));
    if (twin) {
      throw conflict(`Collection "${collection.name}" already has the index "${twin.name}" on the same keys as "${spec.name}"`);
    }
    const index: IndexDef = {
      name: spec.name,
      no: this.catalog.nextNo++,
      fields: Object.entries(spec.keys).map(([path, direction]) => ({ path, direction })),
      unique: spec.unique,
      sparse: spec.sparse,
      multikey: false,
      multikeyPaths: [],
    };
    const prefix = numberPrefix(collection.no);
    for (const { value } of this.dbs.docs.getRange({ start: prefix, end: successor(prefix) as Buffer })) {
      const doc = decodeDoc(value);
      const { entries, multikeyPaths } = indexEntries(doc, index);
      for (const entry of entries) {
        if (index.unique) this.checkUnique(collection, index, entry, doc);
        this.dbs.idx.putSync(entryKey(entry, doc._id), EMPTY);
      }
      this.markMultikey(index, multikeyPaths);
    }
    collection.indexes.push(index);
    this.dirty = true;
    return true;
  }
}
