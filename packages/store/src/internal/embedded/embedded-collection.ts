import { randomUUID } from 'node:crypto';
import { isEqual } from 'mingo/util';
import { AppError, isAppError } from '../contracts';
import { isPlainObject, merged } from '@nap/util';
import type { Collection, Doc, Filter, FindOneAndUpdateOptions, FindOptions, IndexSpec, Update, UpdateResult } from '../../types';
import { cloneValue } from '../clone';
import { badRequest, keyTooLong } from '../errors';
import { filterWithNulls, updateWithoutUndefined } from '../parity';
import { hasMongoOnlyOptions, isIdIndex, normalizeIndexSpec } from '../index-spec';
import { collectionDef } from './catalog';
import { decodeDoc, decodeMembers, encodeDocWithMembers, storedMembers } from './doc-codec';
import { writeByMembers } from './member-writes';
import type { EmbeddedEngine } from './engine';
import { MAX_ID_BYTES } from './key-codec';
import { applyUpdate, projectDocs, seedFromFilter, validateReplacement, validateUpdate } from './mongo-semantics';
import { countQuery, runQuery } from './query-exec';
import { keysOf, type WriteTxn } from './write-txn';

type NewDoc = Omit<Doc, '_id'> & { _id?: string };

function checkId(id: unknown): string {
  if (typeof id !== 'string') throw badRequest(`_id must be a string; got ${typeof id}`);
  if (id === '') throw badRequest('_id must not be empty');
  if (Buffer.byteLength(id, 'utf8') > MAX_ID_BYTES) throw keyTooLong(`The _id "${id.slice(0, 32)}…"`, { limitBytes: MAX_ID_BYTES });
  return id;
}

/** A private copy of a document to insert, with its `_id` (generated when absent), and whether it holds only values JSON carries. */
function prepareNew(doc: NewDoc): { doc: Doc; plain: boolean } {
  if (!isPlainObject(doc)) throw badRequest('A document must be an object');
  const notes = { special: false };
  const out = cloneValue(doc, notes) as Record<string, unknown>;
  const id = out._id === undefined ? randomUUID() : checkId(out._id);
  // `_id` first, as MongoDB stores it.
  const { _id: _ignored, ...rest } = out;
  return { doc: { _id: id, ...rest }, plain: !notes.special };
}

function filterId(filter: Filter): string | undefined {
  const id = filter._id;
  if (typeof id === 'string') return id;
  if (isPlainObject(id) && typeof id.$eq === 'string') return id.$eq;
  return undefined;
}

/**
 * The top-level members a filter reads (`a` of `a.b`), or undefined when it has a top-level
 * operator (`$and`, `$or`, …): then what it reads is not worked out, and documents are read whole.
 */
function filterMembers(filter: Filter): string[] | undefined {
  const out: string[] = [];
  for (const key of Object.keys(filter)) {
    if (key.startsWith('$')) return undefined;
    const dot = key.indexOf('.');
    out.push(dot === -1 ? key : key.slice(0, dot));
  }
  return out;
}

function withId(id: string, doc: Record<string, unknown>): Doc {
  const { _id: _ignored, ...rest } = doc;
  return { _id: id, ...rest };
}

/** True when the first member of `doc` is `_id` and it is `id`: {@link withId} would make a copy of it as it is. */
function startsWithId(id: string, doc: Record<string, unknown>): boolean {
  for (const key in doc) return key === '_id' && doc._id === id;
  return false;
}

/** `e` with `details.insertedCount`: how many documents of an `insertMany` went in before it. */
function withInsertedCount(e: AppError, insertedCount: number): AppError {
  if (!isPlainObject(e.details)) return e;
  return new AppError(e.code, e.message, { details: { ...e.details, insertedCount }, cause: e.cause });
}

/** One collection of an embedded store. */
export function createEmbeddedCollection(engine: EmbeddedEngine, name: string): Collection<Doc> {
  // single-document writes check everything before their first key is written: no nested transaction needed
  const writeOne = <R>(fn: (txn: WriteTxn) => R): Promise<R> => engine.write(fn, { abortable: false });
  const findMany = (filter: Filter, options: FindOptions = {}): Promise<Doc[]> =>
    engine.read((dbs, catalog) =>
      projectDocs(runQuery(dbs, collectionDef(catalog, name), filterWithNulls(filter), options), options.projection),
    );

  const collection: Collection<Doc> = {
    name,

    async insertOne(doc) {
      const prepared = prepareNew(doc);
      await writeOne((txn) => txn.insert(txn.ensureCollection(name), prepared.doc, prepared.plain));
      // the copy made for the write is the caller's now: the store keeps only its encoded form
      return prepared.doc;
    },

    async insertOneId(doc) {
      if (!isPlainObject(doc)) throw badRequest('A document must be an object');
      const id = doc._id === undefined ? randomUUID() : checkId(doc._id);
      // encoded now, not copied: the write runs later in the batch, and the caller may change the document meanwhile
      // (one that starts with its `_id`, as a job does, is encoded as it is: nothing keeps it)
      const encoded = encodeDocWithMembers(startsWithId(id, doc) ? (doc as Doc) : withId(id, doc));
      await writeOne((txn) => txn.insertEncoded(txn.ensureCollection(name), id, encoded));
      return id;
    },

    async insertMany(docs) {
      if (!Array.isArray(docs)) throw badRequest('insertMany needs an array of documents');
      const prepared = docs.map(prepareNew);
      if (prepared.length === 0) return [];
      // ordered, as on MongoDB: the documents before the first refused one stay inserted
      const refused = await engine.write((txn): unknown => {
        const target = txn.ensureCollection(name);
        for (const [i, { doc, plain }] of prepared.entries()) {
          try {
            txn.insert(target, doc, plain);
          } catch (e) {
            if (!isAppError(e)) throw e;
            return withInsertedCount(e, i);
          }
        }
        return undefined;
      });
      if (refused !== undefined) throw refused;
      // the copies made for the write are the caller's now: the store keeps only their encoded form
      return prepared.map((p) => p.doc);
    },

    find: (filter, options) => findMany(filter ?? {}, options),

    findOneJson(rawFilter, members) {
      const filter = filterWithNulls(rawFilter);
      const read = filterMembers(filter);
      // a document of the members format is matched on the members the filter reads, and answered as the text it is stored as
      const names = read === undefined ? undefined : new Set(['_id', ...read, ...members]);
      const texts = new WeakMap<Doc, string>();
      const decode = (text: string): Doc => {
        const stored = names === undefined ? undefined : storedMembers(text);
        if (names === undefined || stored === undefined) return decodeDoc(text);
        const doc = decodeMembers(stored, names);
        texts.set(doc, stored.body);
        return doc;
      };
      return engine.read((dbs, catalog) => {
        const [doc] = runQuery(dbs, collectionDef(catalog, name), filter, { limit: 1, decode });
        if (doc === undefined) return null;
        const picked: Record<string, unknown> = {};
        for (const member of members) if (Object.hasOwn(doc, member)) picked[member] = doc[member];
        return { json: texts.get(doc) ?? JSON.stringify(doc), doc: picked as Doc };
      });
    },

    async findOne(filter, options = {}) {
      const [doc] = await findMany(filter ?? {}, merged(options, { limit: 1 }));
      return doc ?? null;
    },

    countDocuments(filter = {}, options = {}) {
      return engine.read((dbs, catalog) => countQuery(dbs, collectionDef(catalog, name), filterWithNulls(filter), options.limit));
    },

    estimatedCount() {
      return engine.read((dbs, catalog) => countQuery(dbs, collectionDef(catalog, name), {}));
    },

    async updateOne(rawFilter, rawUpdate, options = {}) {
      const filter = filterWithNulls(rawFilter);
      const update = updateWithoutUndefined(rawUpdate);
      validateUpdate(update);
      return writeOne((txn): UpdateResult => {
        const target = txn.collection(name);
        const id = filterId(filter);
        const byMembers = target && id !== undefined ? writeByMembers(txn, target, id, filter, update) : undefined;
        // a filter that did not match an upsert's document goes on to the insert (and its duplicate _id)
        if (byMembers && (byMembers.matched || !options.upsert))
          return { matchedCount: byMembers.matched ? 1 : 0, modifiedCount: byMembers.modified ? 1 : 0 };
        const [doc] = target ? runQuery(txn.dbs, target, filter, { limit: 1 }) : [];
        if (target && doc) {
          // the document read is this write's own copy: updated in place, its old index entries taken first
          const entries = txn.snapshotOf(target, doc);
          if (!applyUpdate(doc, update, filter, false)) return { matchedCount: 1, modifiedCount: 0 };
          txn.replace(target, entries, withId(doc._id, doc));
          return { matchedCount: 1, modifiedCount: 1 };
        }
        if (!options.upsert) return { matchedCount: 0, modifiedCount: 0 };
        const inserted = upsertDoc(filter, update);
        txn.insert(txn.ensureCollection(name), inserted);
        return { matchedCount: 0, modifiedCount: 0, upsertedId: inserted._id };
      });
    },

    async updateMany(rawFilter, rawUpdate) {
      const filter = filterWithNulls(rawFilter);
      const update = updateWithoutUndefined(rawUpdate);
      validateUpdate(update);
      return engine.write((txn): UpdateResult => {
        const target = txn.collection(name);
        if (!target) return { matchedCount: 0, modifiedCount: 0 };
        const matched = runQuery(txn.dbs, target, filter);
        let modifiedCount = 0;
        for (const doc of matched) {
          const entries = txn.snapshotOf(target, doc);
          if (!applyUpdate(doc, update, filter, false)) continue;
          txn.replace(target, entries, withId(doc._id, doc));
          modifiedCount++;
        }
        return { matchedCount: matched.length, modifiedCount };
      });
    },

    async replaceOne(rawFilter, doc, options = {}) {
      const filter = filterWithNulls(rawFilter);
      validateReplacement(doc);
      const replacement = cloneValue(doc) as Record<string, unknown>;
      if (replacement._id !== undefined) checkId(replacement._id);
      return writeOne((txn): UpdateResult => {
        const target = txn.collection(name);
        const [before] = target ? runQuery(txn.dbs, target, filter, { limit: 1 }) : [];
        if (target && before) {
          if (replacement._id !== undefined && replacement._id !== before._id) {
            throw badRequest(`A replacement must not change _id "${before._id}"`);
          }
          const after = withId(before._id, replacement);
          if (isEqual(before, after)) return { matchedCount: 1, modifiedCount: 0 };
          txn.replace(target, before, after);
          return { matchedCount: 1, modifiedCount: 1 };
        }
        if (!options.upsert) return { matchedCount: 0, modifiedCount: 0 };
        const id = (replacement._id as string | undefined) ?? filterId(filter) ?? randomUUID();
        const inserted = withId(checkId(id), replacement);
        txn.insert(txn.ensureCollection(name), inserted);
        return { matchedCount: 0, modifiedCount: 0, upsertedId: inserted._id };
      });
    },

    async findOneAndUpdate(rawFilter, rawUpdate, options: FindOneAndUpdateOptions = {}) {
      const filter = filterWithNulls(rawFilter);
      const update = updateWithoutUndefined(rawUpdate);
      validateUpdate(update);
      const result = await writeOne((txn): Doc | null => {
        const target = txn.collection(name);
        // only with a projection that includes fields: the answer is then made of members the write read
        const id = filterId(filter);
        const byMembers =
          target && id !== undefined && options.projection !== undefined && Object.keys(options.projection).length > 0
            ? writeByMembers(txn, target, id, filter, update, {
                projection: options.projection,
                keepBefore: options.returnDocument !== 'after',
              })
            : undefined;
        if (byMembers && (byMembers.matched || !options.upsert))
          return byMembers.matched ? ((options.returnDocument === 'after' ? byMembers.after : byMembers.before) ?? null) : null;
        const sort = options.sort;
        const [doc] = target ? runQuery(txn.dbs, target, filter, sort ? { sort, limit: 1 } : { limit: 1 }) : [];
        if (target && doc) {
          const before = options.returnDocument === 'after' ? undefined : cloneValue(doc);
          const entries = txn.snapshotOf(target, doc);
          const after = withId(doc._id, doc);
          if (applyUpdate(after, update, filter, false)) txn.replace(target, entries, after);
          return before ?? after;
        }
        if (!options.upsert) return null;
        const inserted = upsertDoc(filter, update);
        txn.insert(txn.ensureCollection(name), inserted);
        return options.returnDocument === 'after' ? cloneValue(inserted) : null;
      });
      if (!result) return null;
      const [projected] = projectDocs([result], options.projection);
      return projected ?? null;
    },

    async findOneAndDelete(rawFilter) {
      const filter = filterWithNulls(rawFilter);
      return writeOne((txn): Doc | null => {
        const target = txn.collection(name);
        const [doc] = target ? runQuery(txn.dbs, target, filter, { limit: 1 }) : [];
        if (!target || !doc) return null;
        txn.remove(target, doc);
        return doc;
      });
    },

    async deleteOne(rawFilter) {
      const filter = filterWithNulls(rawFilter);
      return writeOne((txn) => {
        const target = txn.collection(name);
        const [doc] = target ? runQuery(txn.dbs, target, filter, { limit: 1 }) : [];
        if (!target || !doc) return 0;
        txn.remove(target, doc);
        return 1;
      });
    },

    async deleteMany(rawFilter) {
      const filter = filterWithNulls(rawFilter);
      return engine.write((txn) => {
        const target = txn.collection(name);
        if (!target) return 0;
        const docs = runQuery(txn.dbs, target, filter);
        for (const doc of docs) txn.remove(target, doc);
        return docs.length;
      });
    },

    async createIndexes(specs: IndexSpec[]) {
      if (!Array.isArray(specs)) throw badRequest('createIndexes needs an array of index specs');
      const normalized = specs.map(normalizeIndexSpec).filter((spec) => !isIdIndex(spec));
      const mongoOnly = normalized.find(hasMongoOnlyOptions);
      if (mongoOnly !== undefined)
        throw badRequest(
          `Index "${mongoOnly.name}" has partialFilterExpression, expireAfterSeconds or collation, which only MongoDB supports; the embedded store indexes every document`,
        );
      if (normalized.length === 0) return;
      await engine.write((txn) => {
        const target = txn.ensureCollection(name);
        for (const spec of normalized) txn.createIndex(target, spec);
      });
    },

    async dropIndex(indexName: string) {
      if (typeof indexName !== 'string' || indexName === '' || indexName === '_id_')
        throw badRequest(`Index "${String(indexName)}" cannot be dropped`);
      return engine.write((txn) => {
        const target = txn.collection(name);
        return target ? txn.dropIndex(target, indexName) : false;
      });
    },

    listIndexes() {
      return engine.read((_, catalog) =>
        (collectionDef(catalog, name)?.indexes ?? []).map((index) => ({
          name: index.name,
          keys: keysOf(index),
          unique: index.unique,
          sparse: index.sparse,
        })),
      );
    },
  };
  return collection;
}

/** The document an upsert inserts: the filter's equality fields, then the update with `$setOnInsert`. */
function upsertDoc(filter: Filter, update: Update): Doc {
  const seeded = seedFromFilter(filter) as Record<string, unknown>;
  const seededId = seeded._id;
  delete seeded._id;
  applyUpdate(seeded as Doc, update, filter, true);
  const setId = seeded._id;
  const id = setId !== undefined ? setId : seededId !== undefined ? seededId : randomUUID();
  return withId(checkId(id), seeded);
}
