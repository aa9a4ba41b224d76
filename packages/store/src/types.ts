/** A stored document: plain JSON-like data with a string `_id`. */
export type Doc = { _id: string } & Record<string, unknown>;

/** A MongoDB query filter (`$eq`, `$in`, `$gt`, `$and`, `$or`, `$regex`, dotted paths, …). */
export type Filter = Record<string, unknown>;

/** A MongoDB update document (`$set`, `$unset`, `$inc`, `$push`, `$pull`, `$addToSet`, …). */
export type Update = Record<string, unknown>;

/** Sort keys in order of precedence: field path → 1 (ascending) or -1 (descending). */
export type SortSpec = Record<string, 1 | -1>;

/** Inclusion (`{ a: 1 }`) or exclusion (`{ a: 0 }`) projection, as in MongoDB. */
export type Projection = Record<string, 0 | 1>;

/** Options of `find` and `findOne`. Without a sort, the order of results is unspecified. */
export interface FindOptions {
  sort?: SortSpec;
  skip?: number;
  /** At most this many documents; 0 or absent means no limit, as in MongoDB. */
  limit?: number;
  projection?: Projection;
}

/** Options of `countDocuments`. */
export interface CountOptions {
  /**
   * Count at most this many documents: the count stops there (MongoDB's `limit`), so a count of a
   * large history costs no more than the limit. 0 or absent counts every match.
   */
  limit?: number;
}

/** A secondary index: `createIndexes` takes these, `listIndexes` returns them with names filled in. */
export interface IndexSpec {
  /** Defaults to MongoDB's naming: `field_1_other_-1`. */
  name?: string;
  keys: Record<string, 1 | -1>;
  unique?: boolean;
  /** Unique indexes skip documents that lack the field. */
  sparse?: boolean;
  /** MongoDB only (the embedded store refuses it): only documents matching this filter are indexed. */
  partialFilterExpression?: Filter;
  /** MongoDB only (the embedded store refuses it): a TTL index; documents expire this many seconds after the date in its key. */
  expireAfterSeconds?: number;
  /** MongoDB only (the embedded store refuses it): the collation of the index (`{ locale: 'en', strength: 2 }`). */
  collation?: Record<string, unknown>;
}

/**
 * An index as `listIndexes` reports it. Indexes that NAP does not manage (made in MongoDB by an
 * operator) may have a kind instead of a direction in their keys: `text`, `hashed`, `2dsphere`.
 */
export interface ListedIndex extends Omit<IndexSpec, 'keys'> {
  name: string;
  keys: Record<string, 1 | -1 | string>;
}

/** Outcome of `updateOne`, `updateMany` and `replaceOne`. */
export interface UpdateResult {
  matchedCount: number;
  /** Documents that changed; an update that leaves a document as it was does not count. */
  modifiedCount: number;
  /** `_id` of the document an upsert inserted. */
  upsertedId?: string;
}

/** Options of `findOneAndUpdate`. */
export interface FindOneAndUpdateOptions {
  /** Which version of the document to return; `'before'` when absent, as in MongoDB. */
  returnDocument?: 'before' | 'after';
  upsert?: boolean;
  sort?: SortSpec;
  projection?: Projection;
}

/**
 * One collection with MongoDB semantics, the same on both stores: a sort ends with `_id` ascending
 * unless it names `_id` (ties never change order between pages), `undefined` members of documents
 * and updates are left out (never stored as null) while `undefined` in a filter means null, and no
 * document may exceed 16 MiB of BSON. Every method returns plain objects with string ids; no driver
 * type escapes. Errors are `AppError`s: `STORE_DUPLICATE_KEY` details name the index (status 409,
 * repositories translate it to their own `<DOMAIN>_ALREADY_EXISTS`), `STORE_DOCUMENT_TOO_LARGE`
 * (413), `STORE_UNAVAILABLE` (503) when the store cannot be reached, `TIMEOUT` (504) past the
 * request's deadline; on MongoDB also `STORE_WRITE_CONCERN_FAILED`, `STORE_INTERRUPTED`,
 * `STORE_AUTH_FAILED` and `STORE_CURSOR_NOT_FOUND`.
 */
export interface Collection<T extends Doc = Doc> {
  readonly name: string;
  /** Inserts; `_id` is generated (UUID v4) when absent. Returns the stored document. */
  insertOne(doc: Omit<T, '_id'> & { _id?: string }): Promise<T>;
  /**
   * Inserts as {@link insertOne} does (the document as it is at the call: changing it afterwards
   * changes nothing stored) and answers only its `_id`: no copy of the document is made for an
   * answer, which for a large document (a job) is most of what an insert costs the caller's process.
   */
  insertOneId(doc: Omit<T, '_id'> & { _id?: string }): Promise<string>;
  /**
   * Inserts in order, as MongoDB's ordered `insertMany`: the documents before the first refused
   * one stay inserted, the rest are not; the error's `details.insertedCount` says how many went in.
   */
  insertMany(docs: (Omit<T, '_id'> & { _id?: string })[]): Promise<T[]>;
  findOne(filter: Filter, options?: FindOptions): Promise<T | null>;
  /**
   * The first document matching `filter` as JSON text: the JSON value `JSON.stringify` makes of
   * what {@link findOne} answers for it (member order may differ), with its members `members`
   * decoded beside it. For a caller that passes a document on as JSON (a bus answer) and reads only
   * a few members of it: the embedded store answers the text it keeps and decodes only those
   * members and the ones `filter` names, instead of the whole document (MongoDB's is encoded).
   */
  findOneJson<K extends keyof T & string>(filter: Filter, members: readonly K[]): Promise<{ json: string; doc: Pick<T, K> } | null>;
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
  countDocuments(filter?: Filter, options?: CountOptions): Promise<number>;
  /**
   * How many documents the collection holds, from the store's own count rather than by reading them
   * (for metrics): exact on the embedded store; MongoDB's collection metadata
   * (`estimatedDocumentCount`), which an unclean shutdown can leave off until the next validate.
   */
  estimatedCount(): Promise<number>;
  updateOne(filter: Filter, update: Update, options?: { upsert?: boolean }): Promise<UpdateResult>;
  updateMany(filter: Filter, update: Update): Promise<UpdateResult>;
  /** Replaces the whole document except `_id`. */
  replaceOne(filter: Filter, doc: Omit<T, '_id'> & { _id?: string }, options?: { upsert?: boolean }): Promise<UpdateResult>;
  /** Atomic: no other write to the collection interleaves between the find and the update. */
  findOneAndUpdate(filter: Filter, update: Update, options?: FindOneAndUpdateOptions): Promise<T | null>;
  findOneAndDelete(filter: Filter): Promise<T | null>;
  deleteOne(filter: Filter): Promise<number>;
  deleteMany(filter: Filter): Promise<number>;
  /** Creates indexes that do not exist yet; fails with `STORE_DUPLICATE_KEY` if existing data breaks a unique one. */
  createIndexes(specs: IndexSpec[]): Promise<void>;
  /** The indexes of the collection, `_id` excluded, their options with them. */
  listIndexes(): Promise<ListedIndex[]>;
  /** Drops the index of that name; false when the collection has none of that name (`_id_` cannot be dropped). */
  dropIndex(name: string): Promise<boolean>;
}

/** The disk under a store as it reads it now, bytes. */
export interface DiskSpace {
  freeBytes: number;
  totalBytes: number;
  /** The free space the store keeps: writes are refused (`STORE_FULL`) below it; 0 when it keeps none. */
  minFreeBytes: number;
}

/** A database of one service. */
export interface Store {
  readonly kind: 'mongo' | 'embedded';
  collection<T extends Doc = Doc>(name: string): Collection<T>;
  /** Names of the collections that hold data or indexes. */
  listCollections(): Promise<string[]>;
  /** Resolves when the store answers; rejects with `STORE_UNAVAILABLE` otherwise. */
  ping(): Promise<void>;
  /** The disk under the store, where the store can read it (the embedded store); MongoDB's server owns its disk. */
  diskSpace?(): Promise<DiskSpace | undefined>;
  close(): Promise<void>;
}
