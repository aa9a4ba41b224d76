import { randomUUID } from 'node:crypto';
import { assertBeforeDeadline, remainingMs } from '@nap/contracts';
import { isPlainObject } from '@nap/util';
import {
  MongoClient,
  type Collection as DriverCollection,
  type Filter as DriverFilter,
  type IndexDescription,
  type MongoClientOptions,
  type UpdateFilter,
} from 'mongodb';
import type { Collection, Doc, Filter, FindOneAndUpdateOptions, FindOptions, IndexSpec, Store, Update, UpdateResult } from '../../types';
import { cloneValue } from '../clone';
import { badRequest } from '../errors';
import { isIdIndex, normalizeIndexSpec } from '../index-spec';
import { translateMongoError } from './translate-error';

/** Options of {@link createMongoStore}. */
export interface MongoStoreOptions {
  /** MongoDB connection string. Never logged or put in error messages. */
  url: string;
  /** The service's database. */
  dbName: string;
  /**
   * How long an operation waits for a usable server before failing with `STORE_UNAVAILABLE`,
   * in milliseconds. Defaults to 10 000.
   */
  serverSelectionTimeoutMs?: number;
  /** Further driver options (pool sizes, TLS, …). */
  clientOptions?: MongoClientOptions;
}

type MongoDoc = { _id: string } & Record<string, unknown>;
type NewDoc = Omit<Doc, '_id'> & { _id?: string };

function withId(doc: NewDoc): MongoDoc {
  if (!isPlainObject(doc)) throw badRequest('A document must be an object');
  const copy = cloneValue(doc) as Record<string, unknown>;
  const id = copy._id === undefined ? randomUUID() : copy._id;
  if (typeof id !== 'string' || id === '') throw badRequest('_id must be a non-empty string');
  const { _id: _ignored, ...rest } = copy;
  return { _id: id, ...rest };
}

/** True when the filter pins `_id` to one value, which an upsert then uses. */
function filterPinsId(filter: Filter): boolean {
  const id = filter._id;
  if (id === undefined) return false;
  if (isPlainObject(id)) return '$eq' in id;
  return true;
}

function updateSetsId(update: Update): boolean {
  return ['$set', '$setOnInsert'].some((op) => {
    const fields = update[op];
    return isPlainObject(fields) && '_id' in fields;
  });
}

/** Gives an upserted document a string `_id` instead of the server's ObjectId. */
function upsertUpdate(filter: Filter, update: Update, upsert: boolean | undefined): Update {
  if (!upsert || !isPlainObject(update) || filterPinsId(filter) || updateSetsId(update)) return update;
  const onInsert = isPlainObject(update.$setOnInsert) ? update.$setOnInsert : {};
  return { ...update, $setOnInsert: { ...onInsert, _id: randomUUID() } };
}

/**
 * `maxTimeMS` from the current request's deadline (`serve()` sets it), so that a slow server cannot
 * hold a request past its timeout; nothing outside a request (background work).
 */
function bound(): { maxTimeMS?: number } {
  const ms = remainingMs();
  return ms === undefined ? {} : { maxTimeMS: ms };
}

/** Driver documents are plain objects with string ids here (no ObjectId is ever written). */
function toDoc(doc: unknown): Doc {
  return doc as Doc;
}

function toDocOrNull(doc: unknown): Doc | null {
  return doc === null || doc === undefined ? null : (doc as Doc);
}

function createMongoCollection(driver: DriverCollection<MongoDoc>): Collection<Doc> {
  const name = driver.collectionName;
  const run = async <R>(op: () => Promise<R>): Promise<R> => {
    assertBeforeDeadline(`A call to collection "${name}"`);
    try {
      return await op();
    } catch (e) {
      throw translateMongoError(e, name);
    }
  };
  const asFilter = (filter: Filter | undefined): DriverFilter<MongoDoc> => (filter ?? {}) as DriverFilter<MongoDoc>;
  const asUpdate = (update: Update): UpdateFilter<MongoDoc> => update as UpdateFilter<MongoDoc>;
  const findOptions = (options: FindOptions = {}) => {
    const out: { sort?: FindOptions['sort']; skip?: number; limit?: number; projection?: FindOptions['projection'] } = {};
    if (options.sort) out.sort = options.sort;
    if (options.skip) out.skip = options.skip;
    if (options.limit) out.limit = options.limit;
    if (options.projection) out.projection = options.projection;
    return out;
  };

  return {
    name,

    insertOne: (doc) =>
      run(async () => {
        const prepared = withId(doc);
        await driver.insertOne(cloneValue(prepared), bound());
        return prepared;
      }),

    insertMany: (docs) =>
      run(async () => {
        if (!Array.isArray(docs)) throw badRequest('insertMany needs an array of documents');
        const prepared = docs.map(withId);
        if (prepared.length > 0) await driver.insertMany(cloneValue(prepared), { ordered: true, ...bound() });
        return prepared;
      }),

    find: (filter, options) =>
      run(async () => (await driver.find(asFilter(filter), { ...findOptions(options), ...bound() }).toArray()).map((d) => toDoc(d))),

    findOne: (filter, options) =>
      run(async () => toDocOrNull(await driver.findOne(asFilter(filter), { ...findOptions(options), ...bound() }))),

    countDocuments: (filter, options = {}) =>
      run(() => driver.countDocuments(asFilter(filter), { ...(options.limit ? { limit: Math.trunc(options.limit) } : {}), ...bound() })),

    updateOne: (filter, update, options = {}) =>
      run(async (): Promise<UpdateResult> => {
        const result = await driver.updateOne(asFilter(filter), asUpdate(upsertUpdate(filter, update, options.upsert)), {
          upsert: options.upsert === true,
          ...bound(),
        });
        const out: UpdateResult = { matchedCount: result.matchedCount, modifiedCount: result.modifiedCount };
        if (result.upsertedId !== null && result.upsertedId !== undefined) out.upsertedId = String(result.upsertedId);
        return out;
      }),

    updateMany: (filter, update) =>
      run(async () => {
        const result = await driver.updateMany(asFilter(filter), asUpdate(update), bound());
        return { matchedCount: result.matchedCount, modifiedCount: result.modifiedCount };
      }),

    replaceOne: (filter, doc, options = {}) =>
      run(async (): Promise<UpdateResult> => {
        if (!isPlainObject(doc)) throw badRequest('A replacement document must be an object');
        const replacement = cloneValue(doc) as Record<string, unknown>;
        if (!options.upsert || replacement._id !== undefined || filterPinsId(filter)) {
          const result = await driver.replaceOne(asFilter(filter), replacement, { upsert: options.upsert === true, ...bound() });
          const out: UpdateResult = { matchedCount: result.matchedCount, modifiedCount: result.modifiedCount };
          if (result.upsertedId !== null && result.upsertedId !== undefined) out.upsertedId = String(result.upsertedId);
          return out;
        }
        // An upsert without an _id would get an ObjectId from the server: replace when a document
        // matches, else insert one with a string _id. A racing insert of a match makes us replace.
        for (let attempt = 0; ; attempt++) {
          const replaced = await driver.replaceOne(asFilter(filter), replacement, bound());
          if (replaced.matchedCount > 0) return { matchedCount: replaced.matchedCount, modifiedCount: replaced.modifiedCount };
          const inserted = withId(replacement);
          try {
            await driver.insertOne(inserted, bound());
            return { matchedCount: 0, modifiedCount: 0, upsertedId: inserted._id };
          } catch (e) {
            if (attempt >= 2) throw e;
          }
        }
      }),

    findOneAndUpdate: (filter, update, options: FindOneAndUpdateOptions = {}) =>
      run(async () => {
        const driverOptions: {
          returnDocument: 'before' | 'after';
          upsert: boolean;
          sort?: FindOptions['sort'];
          projection?: FindOptions['projection'];
          maxTimeMS?: number;
        } = {
          returnDocument: options.returnDocument ?? 'before',
          upsert: options.upsert === true,
          ...bound(),
        };
        if (options.sort) driverOptions.sort = options.sort;
        if (options.projection) driverOptions.projection = options.projection;
        const doc = await driver.findOneAndUpdate(asFilter(filter), asUpdate(upsertUpdate(filter, update, options.upsert)), driverOptions);
        return toDocOrNull(doc);
      }),

    findOneAndDelete: (filter) => run(async () => toDocOrNull(await driver.findOneAndDelete(asFilter(filter), bound()))),

    deleteOne: (filter) => run(async () => (await driver.deleteOne(asFilter(filter), bound())).deletedCount),

    deleteMany: (filter) => run(async () => (await driver.deleteMany(asFilter(filter), bound())).deletedCount),

    createIndexes: (specs: IndexSpec[]) =>
      run(async () => {
        if (!Array.isArray(specs)) throw badRequest('createIndexes needs an array of index specs');
        const descriptions: IndexDescription[] = specs
          .map(normalizeIndexSpec)
          .filter((spec) => !isIdIndex(spec))
          .map((spec) => {
            const description: IndexDescription = { key: spec.keys, name: spec.name };
            if (spec.unique) description.unique = true;
            if (spec.sparse) description.sparse = true;
            return description;
          });
        if (descriptions.length > 0) await driver.createIndexes(descriptions);
      }),

    dropIndex: (indexName: string) =>
      run(async () => {
        if (typeof indexName !== 'string' || indexName === '' || indexName === '_id_')
          throw badRequest(`Index "${String(indexName)}" cannot be dropped`);
        try {
          await driver.dropIndex(indexName);
          return true;
        } catch (e) {
          // IndexNotFound (27), NamespaceNotFound (26): nothing of that name to drop
          const code = (e as { code?: unknown }).code;
          if (code === 27 || code === 26) return false;
          throw e;
        }
      }),

    listIndexes: () =>
      run(async () => {
        let indexes: Record<string, unknown>[];
        try {
          indexes = await driver.listIndexes().toArray();
        } catch (e) {
          // NamespaceNotFound: the collection does not exist yet.
          if ((e as { code?: unknown }).code === 26) return [];
          throw e;
        }
        return indexes
          .filter((index) => index.name !== '_id_')
          .map((index) => ({
            name: String(index.name),
            keys: index.key as Record<string, 1 | -1>,
            unique: index.unique === true,
            sparse: index.sparse === true,
          }));
      }),
  };
}

/**
 * A store on MongoDB through the official driver; the client connects on first use. Driver errors
 * are translated at this edge: duplicate key → `STORE_DUPLICATE_KEY`, unreachable →
 * `STORE_UNAVAILABLE`, refused input → `BAD_REQUEST`.
 */
export function createMongoStore(options: MongoStoreOptions): Store {
  let client: MongoClient;
  try {
    client = new MongoClient(options.url, {
      serverSelectionTimeoutMS: options.serverSelectionTimeoutMs ?? 10_000,
      // Binary data comes back as Buffers, so no BSON type escapes the store.
      promoteBuffers: true,
      ...options.clientOptions,
    });
  } catch (e) {
    throw translateMongoError(e, '(none)');
  }
  const db = client.db(options.dbName);
  const collections = new Map<string, Collection<Doc>>();
  return {
    kind: 'mongo',
    collection<T extends Doc = Doc>(name: string): Collection<T> {
      let collection = collections.get(name);
      if (!collection) {
        collection = createMongoCollection(db.collection<MongoDoc>(name));
        collections.set(name, collection);
      }
      return collection as unknown as Collection<T>;
    },
    async listCollections() {
      try {
        const infos = await db.listCollections({}, { nameOnly: true }).toArray();
        return infos
          .map((info) => info.name)
          .filter((name) => !name.startsWith('system.'))
          .sort();
      } catch (e) {
        throw translateMongoError(e, '(all)');
      }
    },
    async ping() {
      try {
        await db.command({ ping: 1 });
      } catch (e) {
        throw translateMongoError(e, '(ping)');
      }
    },
    async close() {
      await client.close();
    },
  };
}
