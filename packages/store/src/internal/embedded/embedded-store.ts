import { mkdirSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { open } from 'lmdb';
import { isAppError } from '../contracts';
import { errorMessage } from '@nap/util';
import type { Collection, CountOptions, Doc, Filter, FindOptions, Store } from '../../types';
import { badRequest, conflict, storeUnavailable } from '../errors';
import { createEmbeddedCollection } from './embedded-collection';
import { EmbeddedEngine } from './engine';
import type { QueryStats } from './query-exec';

/** Options of {@link createEmbeddedStore}. */
export interface EmbeddedStoreOptions {
  /** Directory of the database; created when missing. One open store per directory and process. */
  path: string;
  /**
   * Free space the disk under the store keeps: a write that would start with less free is refused
   * with `STORE_FULL` before LMDB touches the disk (LMDB out of space may keep part of a failed
   * write). {@link DEFAULT_MIN_FREE_BYTES} when unset; 0 turns the check off.
   */
  minFreeBytes?: number;
}

/** The free space the disk under an embedded store keeps by default: 128 MiB. */
export const DEFAULT_MIN_FREE_BYTES = 128 * 1024 * 1024;

/** The embedded store, with a query-plan hook for tests and diagnostics. */
export interface EmbeddedStore extends Store {
  readonly kind: 'embedded';
  /** Absolute path of the database directory. */
  readonly path: string;
  /**
   * Runs a query like `find` and reports how: which plan and index it used and how many index
   * keys and documents it read. For tests and diagnostics.
   */
  explain(collection: string, filter?: Filter, options?: FindOptions): Promise<QueryStats>;
  /**
   * Runs a count like `countDocuments` and reports how: `returned` is the count; a count answered
   * from index keys alone examines no document.
   */
  explainCount(collection: string, filter?: Filter, options?: CountOptions): Promise<QueryStats>;
}

const openPaths = new Set<string>();

function validateCollectionName(name: string): void {
  if (
    typeof name !== 'string' ||
    name === '' ||
    name === '__proto__' ||
    name.includes('\0') ||
    name.includes('$') ||
    name.startsWith('system.')
  ) {
    throw badRequest(`"${String(name)}" is not a valid collection name`);
  }
}

/**
 * Opens (creating if needed) an embedded store: MongoDB semantics over LMDB on local disk.
 * Writes resolve once committed and flushed, so they survive a crash or `kill -9`.
 *
 * Throws `CONFLICT` when the directory is already open in this process (one store per path), and
 * `STORE_UNAVAILABLE` when the database cannot be opened.
 */
export function createEmbeddedStore(options: EmbeddedStoreOptions): EmbeddedStore {
  const path = resolvePath(options.path);
  if (openPaths.has(path))
    throw conflict(`The embedded store at "${path}" is already open in this process; share that store or close it first`);
  let engine: EmbeddedEngine;
  try {
    mkdirSync(path, { recursive: true });
    // LMDB's default durability (no noSync / noMetaSync); the engine resolves a write only
    // once its batch is committed and `flushed`, so overlapping sync (the Linux default) is safe.
    // No event-turn batching: the engine makes its own batch per turn, and LMDB's batch start drops
    // a promise that is rejected when a commit fails (a full disk), which would end the process.
    const root = open({ path, maxDbs: 4, eventTurnBatching: false });
    try {
      engine = new EmbeddedEngine(path, root, () => openPaths.delete(path), options.minFreeBytes ?? DEFAULT_MIN_FREE_BYTES);
    } catch (e) {
      void root.close();
      throw e;
    }
  } catch (e) {
    if (isAppError(e) && e.code === 'STORE_FORMAT_NEWER') throw e;
    throw storeUnavailable(`Cannot open the embedded store at "${path}": ${errorMessage(e)}`, e);
  }
  openPaths.add(path);
  const collections = new Map<string, Collection<Doc>>();
  return {
    kind: 'embedded',
    path,
    collection<T extends Doc = Doc>(name: string): Collection<T> {
      validateCollectionName(name);
      let collection = collections.get(name);
      if (!collection) {
        collection = createEmbeddedCollection(engine, name);
        collections.set(name, collection);
      }
      return collection as unknown as Collection<T>;
    },
    listCollections: () => engine.listCollections(),
    ping: () => engine.ping(),
    diskSpace: () => Promise.resolve(engine.diskSpace()),
    close: () => engine.close(),
    explain: (collection, filter, findOptions) => engine.explain(collection, filter, findOptions),
    explainCount: (collection, filter, countOptions) => engine.explainCount(collection, filter, countOptions),
  };
}
