import { randomUUID } from 'node:crypto';
import { AppError, assertBeforeDeadline, boundCallsByRequestDeadline, remainingMs } from '../contracts';
import { isPlainObject } from '@nap/util';
import {
  MongoClient,
  type Collection as DriverCollection,
  type Filter as DriverFilter,
  type IndexDescription,
  type MongoClientOptions,
  type UpdateFilter,
} from 'mongodb';
import type {
  Collection,
  Doc,
  Filter,
  FindOneAndUpdateOptions,
  FindOptions,
  IndexSpec,
  ListedIndex,
  SortSpec,
  Store,
  Update,
  UpdateResult,
} from '../../types';
import { cloneValue } from '../clone';
import { MAX_DOCUMENT_BYTES, badRequest, documentTooLarge } from '../errors';
import { isIdIndex, normalizeIndexSpec } from '../index-spec';
import { bsonSize, filterWithNulls, updateWithoutUndefined, withIdTieBreaker } from '../parity';
import { translateMongoError } from './translate-error';

/** Options of {@link createMongoStore}. */
export interface MongoStoreOptions {
  /** MongoDB connection string. Never logged or put in error messages. */
  url: string;
  /** The service's database. */
  dbName: string;
  /**
   * How long an operation outside a request (background work) waits for a usable server before
   * failing with `STORE_UNAVAILABLE`, in milliseconds. Defaults to 10 000. Within a request the
   * request's deadline bounds it (and everything else) when it comes first.
   */
  serverSelectionTimeoutMs?: number;
  /** How long an operation outside a request waits for a pooled connection, in milliseconds. Defaults to 10 000. */
  waitQueueTimeoutMs?: number;
  /**
   * Further driver options (pool sizes, TLS, …). The durability settings are the store's own and
   * win over these and the connection string: writes acknowledged by a majority and journaled,
   * reads of majority-committed data, `undefined` members left out.
   */
  clientOptions?: MongoClientOptions;
}

type MongoDoc = { _id: string } & Record<string, unknown>;
type NewDoc = Omit<Doc, '_id'> & { _id?: string };

/**
 * What every store sets on its client: an acknowledged write survives a failover (a majority of
 * the replica set has it, on disk), a read sees only what cannot be rolled back, and `undefined`
 * is left out as the embedded store does instead of being stored as null.
 */
const DURABILITY: MongoClientOptions = {
  writeConcern: { w: 'majority', journal: true },
  readConcern: { level: 'majority' },
  ignoreUndefined: true,
  retryWrites: true,
  retryReads: true,
};

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
 * The bounds of one call from the current request's deadline (`serve()` sets it): `maxTimeMS` for
 * the server's work (a write's wait for its write concern included), and a signal that ends the
 * wait for a server and for a pooled connection, which the driver's `timeoutMS` no longer bounds
 * (it has no effect from driver 7.8 on). Nothing outside a request (background work), where the
 * client's `serverSelectionTimeoutMS` and `waitQueueTimeoutMS` apply.
 */
interface CallBounds {
  maxTimeMS?: number;
  signal?: AbortSignal;
}

function bounds(): CallBounds {
  const ms = remainingMs();
  return ms === undefined ? {} : { maxTimeMS: ms, signal: AbortSignal.timeout(ms) };
}

/** Driver documents are plain objects with string ids here (no ObjectId is ever written). */
function toDoc(doc: unknown): Doc {
  return doc as Doc;
}

function toDocOrNull(doc: unknown): Doc | null {
  return doc === null || doc === undefined ? null : (doc as Doc);
}

function sortOf(sort: SortSpec | undefined): SortSpec | undefined {
  return sort === undefined ? undefined : withIdTieBreaker(sort);
}

/** Refuses a document over 16 MiB before it is sent, with the same error as the embedded store. */
function checkSize(collection: string, doc: object, extra: { insertedCount?: number } = {}): void {
  const sizeBytes = bsonSize(doc);
  if (sizeBytes > MAX_DOCUMENT_BYTES) throw documentTooLarge({ collection, sizeBytes, limitBytes: MAX_DOCUMENT_BYTES, ...extra });
}

/**
 * Runs one call of the store within the current request's deadline: refused when it has passed,
 * `TIMEOUT` when it passes before MongoDB answers, driver errors translated at this edge.
 */
async function bounded<R>(name: string, op: (bound: CallBounds) => Promise<R>): Promise<R> {
  assertBeforeDeadline(`A call to collection "${name}"`);
  const bound = bounds();
  try {
    return await untilAborted(op(bound), bound.signal);
  } catch (e) {
    if (bound.signal?.aborted === true && !(e instanceof AppError)) {
      throw new AppError(
        'TIMEOUT',
        `MongoDB did not answer a call on collection "${name}" before the request's deadline; a write may or may not have been applied`,
        { cause: e },
      );
    }
    throw translateMongoError(e, name);
  }
}

function createMongoCollection(driver: DriverCollection<MongoDoc>): Collection<Doc> {
  const name = driver.collectionName;
  const run = <R>(op: (bound: CallBounds) => Promise<R>): Promise<R> => bounded(name, op);
  const asFilter = (filter: Filter | undefined): DriverFilter<MongoDoc> => filterWithNulls(filter) as DriverFilter<MongoDoc>;
  const asUpdate = (update: Update): UpdateFilter<MongoDoc> => updateWithoutUndefined(update) as UpdateFilter<MongoDoc>;
  const findOptions = (options: FindOptions = {}) => {
    const out: { sort?: SortSpec; skip?: number; limit?: number; projection?: FindOptions['projection'] } = {};
    const sort = sortOf(options.sort);
    if (sort) out.sort = sort;
    if (options.skip) out.skip = options.skip;
    if (options.limit) out.limit = options.limit;
    if (options.projection) out.projection = options.projection;
    return out;
  };
  const updateResult = (result: { matchedCount: number; modifiedCount: number; upsertedId?: unknown }): UpdateResult => {
    const out: UpdateResult = { matchedCount: result.matchedCount, modifiedCount: result.modifiedCount };
    if (result.upsertedId !== null && result.upsertedId !== undefined) out.upsertedId = String(result.upsertedId);
    return out;
  };

  return {
    name,

    insertOne: (doc) =>
      run(async (bound) => {
        const prepared = withId(doc);
        checkSize(name, prepared);
        await driver.insertOne(cloneValue(prepared), bound);
        return prepared;
      }),

    insertOneId: (doc) =>
      run(async (bound) => {
        // withId made the copy the driver may change (it is no one else's)
        const prepared = withId(doc);
        checkSize(name, prepared);
        await driver.insertOne(prepared, bound);
        return prepared._id;
      }),

    insertMany: (docs) =>
      run(async (bound) => {
        if (!Array.isArray(docs)) throw badRequest('insertMany needs an array of documents');
        const prepared = docs.map(withId);
        // ordered, as on the embedded store: what comes before a document over the limit is inserted
        const tooLarge = prepared.findIndex((doc) => bsonSize(doc) > MAX_DOCUMENT_BYTES);
        const fitting = tooLarge === -1 ? prepared : prepared.slice(0, tooLarge);
        if (fitting.length > 0) await driver.insertMany(cloneValue(fitting), { ordered: true, ...bound });
        if (tooLarge !== -1) checkSize(name, prepared[tooLarge] as MongoDoc, { insertedCount: tooLarge });
        return prepared;
      }),

    find: (filter, options) =>
      run(async (bound) => (await driver.find(asFilter(filter), { ...findOptions(options), ...bound }).toArray()).map((d) => toDoc(d))),

    findOne: (filter, options) =>
      run(async (bound) => toDocOrNull(await driver.findOne(asFilter(filter), { ...findOptions(options), ...bound }))),

    findOneJson: (filter, members) =>
      run(async (bound) => {
        const doc = toDocOrNull(await driver.findOne(asFilter(filter), bound));
        if (doc === null) return null;
        const picked: Record<string, unknown> = {};
        for (const member of members) if (Object.hasOwn(doc, member)) picked[member] = doc[member];
        return { json: JSON.stringify(doc), doc: picked as Doc };
      }),

    countDocuments: (filter, options = {}) =>
      run((bound) => driver.countDocuments(asFilter(filter), { ...(options.limit ? { limit: Math.trunc(options.limit) } : {}), ...bound })),

    estimatedCount: () => run((bound) => driver.estimatedDocumentCount(bound)),

    updateOne: (filter, update, options = {}) =>
      run(async (bound) =>
        updateResult(
          await driver.updateOne(asFilter(filter), asUpdate(upsertUpdate(filter, update, options.upsert)), {
            upsert: options.upsert === true,
            ...bound,
          }),
        ),
      ),

    updateMany: (filter, update) =>
      run(async (bound) => {
        const result = await driver.updateMany(asFilter(filter), asUpdate(update), bound);
        return { matchedCount: result.matchedCount, modifiedCount: result.modifiedCount };
      }),

    replaceOne: (filter, doc, options = {}) =>
      run(async (bound): Promise<UpdateResult> => {
        if (!isPlainObject(doc)) throw badRequest('A replacement document must be an object');
        const replacement = cloneValue(doc) as Record<string, unknown>;
        checkSize(name, replacement);
        if (!options.upsert || replacement._id !== undefined || filterPinsId(filter)) {
          return updateResult(await driver.replaceOne(asFilter(filter), replacement, { upsert: options.upsert === true, ...bound }));
        }
        // An upsert without an _id would get an ObjectId from the server: replace when a document
        // matches, else insert one with a string _id. A racing insert of a match makes us replace.
        for (let attempt = 0; ; attempt++) {
          const replaced = await driver.replaceOne(asFilter(filter), replacement, bound);
          if (replaced.matchedCount > 0) return { matchedCount: replaced.matchedCount, modifiedCount: replaced.modifiedCount };
          const inserted = withId(replacement);
          try {
            await driver.insertOne(inserted, bound);
            return { matchedCount: 0, modifiedCount: 0, upsertedId: inserted._id };
          } catch (e) {
            if (attempt >= 2) throw e;
          }
        }
      }),

    findOneAndUpdate: (filter, update, options: FindOneAndUpdateOptions = {}) =>
      run(async (bound) => {
        const driverOptions: {
          returnDocument: 'before' | 'after';
          upsert: boolean;
          sort?: SortSpec;
          projection?: FindOptions['projection'];
        } & CallBounds = {
          returnDocument: options.returnDocument ?? 'before',
          upsert: options.upsert === true,
          ...bound,
        };
        const sort = sortOf(options.sort);
        if (sort) driverOptions.sort = sort;
        if (options.projection) driverOptions.projection = options.projection;
        const doc = await driver.findOneAndUpdate(asFilter(filter), asUpdate(upsertUpdate(filter, update, options.upsert)), driverOptions);
        return toDocOrNull(doc);
      }),

    findOneAndDelete: (filter) => run(async (bound) => toDocOrNull(await driver.findOneAndDelete(asFilter(filter), bound))),

    deleteOne: (filter) => run(async (bound) => (await driver.deleteOne(asFilter(filter), bound)).deletedCount),

    deleteMany: (filter) => run(async (bound) => (await driver.deleteMany(asFilter(filter), bound)).deletedCount),

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
            if (spec.partialFilterExpression !== undefined) description.partialFilterExpression = spec.partialFilterExpression;
            if (spec.expireAfterSeconds !== undefined) description.expireAfterSeconds = spec.expireAfterSeconds;
            if (spec.collation !== undefined) description.collation = spec.collation as unknown as IndexDescription['collation'];
            return description;
          });
        // no maxTimeMS: a build cut short is rolled back and would only have to start again (the call still answers by the deadline)
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
      run(async (bound) => {
        let indexes: Record<string, unknown>[];
        try {
          indexes = await driver.listIndexes(bound).toArray();
        } catch (e) {
          // NamespaceNotFound: the collection does not exist yet.
          if ((e as { code?: unknown }).code === 26) return [];
          throw e;
        }
        return indexes.filter((index) => index.name !== '_id_').map(listedIndex);
      }),
  };
}

/** An index as MongoDB lists it, with the options NAP compares; kinds other than 1/-1 kept as they are. */
function listedIndex(index: Record<string, unknown>): ListedIndex {
  const keys = isPlainObject(index.key) ? index.key : {};
  const out: ListedIndex = {
    name: String(index.name),
    keys: Object.fromEntries(Object.entries(keys).map(([field, kind]) => [field, kind === 1 || kind === -1 ? kind : String(kind)])),
    unique: index.unique === true,
    sparse: index.sparse === true,
  };
  if (isPlainObject(index.partialFilterExpression)) out.partialFilterExpression = index.partialFilterExpression;
  if (typeof index.expireAfterSeconds === 'number') out.expireAfterSeconds = index.expireAfterSeconds;
  if (isPlainObject(index.collation)) out.collation = index.collation;
  return out;
}

/**
 * Settles as `work`, or rejects with the signal's reason once it aborts (the request's deadline),
 * whichever comes first: a reply that never comes (a stalled socket) cannot hold a request past
 * its deadline. The work goes on unobserved; its failure is ignored.
 */
function untilAborted<R>(work: Promise<R>, signal: AbortSignal | undefined): Promise<R> {
  if (signal === undefined) return work;
  return new Promise<R>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/** One client per process and connection settings, shared by every store on it (standalone runs six). */
const sharedClients = new Map<string, { client: MongoClient; users: number }>();

function clientKey(options: MongoStoreOptions): string {
  return JSON.stringify([options.url, options.serverSelectionTimeoutMs, options.waitQueueTimeoutMs, options.clientOptions ?? {}]);
}

function acquireClient(options: MongoStoreOptions): { client: MongoClient; release(): Promise<void> } {
  const key = clientKey(options);
  let entry = sharedClients.get(key);
  if (entry === undefined) {
    const client = new MongoClient(options.url, {
      serverSelectionTimeoutMS: options.serverSelectionTimeoutMs ?? 10_000,
      waitQueueTimeoutMS: options.waitQueueTimeoutMs ?? 10_000,
      // Binary data comes back as Buffers, so no BSON type escapes the store.
      promoteBuffers: true,
      ...options.clientOptions,
      ...DURABILITY,
    });
    entry = { client, users: 0 };
    sharedClients.set(key, entry);
  }
  entry.users += 1;
  const held = entry;
  let released = false;
  return {
    client: held.client,
    async release() {
      if (released) return;
      released = true;
      held.users -= 1;
      if (held.users > 0) return;
      if (sharedClients.get(key) === held) sharedClients.delete(key);
      await held.client.close();
    },
  };
}

/**
 * A store on MongoDB through the official driver; the client connects on first use and is shared
 * by every store of the process on the same connection string and settings (one connection pool
 * per process; `close()` of the last store closes it). Writes are acknowledged by a majority of
 * the replica set and journaled (`{ w: 'majority', j: true }`), reads use majority read concern,
 * every call of a request is bounded by its deadline, and sorts end with `_id`. Driver errors are
 * translated at this edge (see {@link translateMongoError}).
 */
export function createMongoStore(options: MongoStoreOptions): Store {
  // a call waits on a server that may hang: requests of this process carry their deadline to it
  boundCallsByRequestDeadline();
  let held: ReturnType<typeof acquireClient>;
  try {
    held = acquireClient(options);
  } catch (e) {
    throw translateMongoError(e, '(none)');
  }
  const db = held.client.db(options.dbName);
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
    listCollections: () =>
      bounded('(all)', async (bound) => {
        const infos = await db.listCollections({}, { nameOnly: true, ...bound }).toArray();
        return infos
          .map((info) => info.name)
          .filter((name) => !name.startsWith('system.'))
          .sort();
      }),
    ping: () =>
      bounded('(ping)', async (bound) => {
        await db.command({ ping: 1 }, bound);
      }),
    async close() {
      await held.release();
    },
  };
}
