/**
 * The catalog: which collections and indexes a store holds. It lives in the `meta` database and is
 * read and written inside the same LMDB transactions as the data, so a reader's snapshot always
 * pairs the catalog with the entries it describes.
 */

/** One field of an index, in key order. */
export interface IndexField {
  path: string;
  direction: 1 | -1;
}

/** A secondary index as stored in the catalog. */
export interface IndexDef {
  name: string;
  /** Key prefix number of the index's entries in the `idx` database. */
  no: number;
  fields: IndexField[];
  unique: boolean;
  sparse: boolean;
  /** Set once any document produced more than one entry (an array value), as MongoDB does. */
  multikey: boolean;
  /**
   * The fields that held an array in some document (MongoDB's `multikeyPaths`), so that a sort on
   * the other fields can still be read from the index. Absent in catalogs written before it was
   * kept: then every field of a multikey index counts as multikey.
   */
  multikeyPaths?: string[];
}

/** The fields of `index` that may hold several values per document. */
export function multikeyFields(index: IndexDef): Set<string> {
  if (!index.multikey) return new Set();
  return new Set(index.multikeyPaths ?? index.fields.map((f) => f.path));
}

export interface CollectionDef {
  name: string;
  /** Key prefix number of the collection's documents in the `docs` database. */
  no: number;
  indexes: IndexDef[];
  /** Number of documents, kept in step with every write. */
  count: number;
}

export interface Catalog {
  version: 1;
  nextNo: number;
  collections: Record<string, CollectionDef>;
}

export const CATALOG_KEY = 'catalog';
/**
 * A number each write of the catalog moves on, so that an engine that kept the catalog decoded
 * learns cheaply that another one (in another thread of the process, on the same environment)
 * wrote it since.
 */
export const CATALOG_GENERATION_KEY = 'catalogGeneration';

export function emptyCatalog(): Catalog {
  return { version: 1, nextNo: 1, collections: {} };
}

/** The catalog entry of a collection, if it exists (never an inherited property). */
export function collectionDef(catalog: Catalog, name: string): CollectionDef | undefined {
  return Object.hasOwn(catalog.collections, name) ? catalog.collections[name] : undefined;
}
