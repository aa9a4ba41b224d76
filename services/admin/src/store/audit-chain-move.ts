// the audit thread loads this: the modules it needs, not @nap/contracts' index (every schema, TypeBox)
import { AUDIT_CHAIN_MOVED_MARKER, AUDIT_DATABASE, serviceDatabase } from '@nap/contracts/dist/services';
import { createStore } from '@nap/store';
import type { Doc, Store, StoreConfig } from '@nap/store';
import { ADMIN_COLLECTIONS } from './collections';

/** The chain's collections, moved together. */
const CHAIN_COLLECTIONS = ['audit_meta', 'audit_records'] as const;
/** The document of the chain's store's `audit_meta` that says the move is done: only removals are left. */
export const MOVED_MARKER = AUDIT_CHAIN_MOVED_MARKER;
/** Documents copied or removed per store call. */
const PAGE = 1_000;

/** Where the audit chain is kept when not in the admin service's store (see {@link openChainStore}). */
export interface AuditChainStores {
  /** The chain's own store (`nap_audit` under the data directory). */
  store: StoreConfig;
  /** The store a chain kept before is moved from: the admin service's. */
  movedFrom?: StoreConfig;
}

/** What {@link auditChainStores} reads of the runtime configuration. */
interface StoreSettings {
  mongoUrl?: string;
  dataDir: string;
  dataMinFreeBytes?: number;
}

/**
 * Where the admin service keeps the audit chain: on embedded stores, in a store of its own
 * (`nap_audit` beside `nap_admin`, a chain found in `nap_admin` moved there at start), whichever
 * process runs the service, so that every platform on one data directory reads the same chain; on
 * MongoDB, undefined: in the service's own store, the one database its user may write.
 */
export function auditChainStores(config: StoreSettings): AuditChainStores | undefined {
  if (config.mongoUrl) return undefined;
  const at = (dbName: string): StoreConfig => ({
    dbName,
    dataDir: config.dataDir,
    ...(config.dataMinFreeBytes !== undefined ? { minFreeBytes: config.dataMinFreeBytes } : {}),
  });
  return { store: at(AUDIT_DATABASE), movedFrom: at(serviceDatabase('admin')) };
}

/**
 * Opens the chain's own store with the chain's indexes, having moved into it a chain kept in
 * `movedFrom` (see {@link moveAuditChain}): the store given as `openFrom` when this thread has it open
 * already, else opened for the move. `moved` is told what the move did when it did anything.
 */
export async function openChainStore(stores: AuditChainStores, moved: (move: AuditChainMove) => void, openFrom?: Store): Promise<Store> {
  const store = createStore(stores.store);
  try {
    // audit_meta has none
    await store
      .collection('audit_records')
      .createIndexes(ADMIN_COLLECTIONS.audit_records.map((spec) => ({ ...spec, keys: { ...spec.keys } })));
    if (stores.movedFrom !== undefined) {
      const from = openFrom ?? createStore(stores.movedFrom);
      try {
        const move = await moveAuditChain(from, store);
        if (move.copied + move.removed > 0) moved(move);
      } finally {
        if (from !== openFrom) await from.close();
      }
    }
    return store;
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
}

/** What {@link moveAuditChain} did. */
export interface AuditChainMove {
  /** Documents copied into the chain's store (none when the move was done already). */
  copied: number;
  /** Documents removed from the store the chain was in. */
  removed: number;
}

/**
 * Moves the audit chain (`audit_records`, `audit_meta`) from the store it was kept in (the admin
 * service's) into a store of its own, and resumes a move a crash cut short: every document is
 * copied (one already there is left as it is: it is the same document), then the marker
 * {@link MOVED_MARKER} is written into the chain's store, then the documents are removed from the
 * old store. A start that finds the marker only removes what is left there: nothing is copied
 * after the chain's store has been written to (retention may have removed old records from it
 * since). Moves nothing when the old store holds no chain.
 */
export async function moveAuditChain(from: Store, to: Store): Promise<AuditChainMove> {
  const held = async () => {
    for (const name of CHAIN_COLLECTIONS) if ((await from.collection(name).findOne({}, { projection: { _id: 1 } })) !== null) return true;
    return false;
  };
  if (!(await held())) return { copied: 0, removed: 0 };
  let copied = 0;
  const meta = to.collection('audit_meta');
  if ((await meta.findOne({ _id: MOVED_MARKER })) === null) {
    for (const name of CHAIN_COLLECTIONS) copied += await copyCollection(from, to, name);
    await meta.insertOne({ _id: MOVED_MARKER, at: new Date().toISOString(), documents: copied });
  }
  let removed = 0;
  for (const name of CHAIN_COLLECTIONS) removed += await removeCollection(from, name);
  return { copied, removed };
}

/** Copies a collection's documents a page at a time in `_id` order, leaving out those the target holds. */
async function copyCollection(from: Store, to: Store, name: string): Promise<number> {
  const source = from.collection(name);
  const target = to.collection(name);
  let copied = 0;
  let after: string | undefined;
  for (;;) {
    const page: Doc[] = await source.find(after === undefined ? {} : { _id: { $gt: after } }, { sort: { _id: 1 }, limit: PAGE });
    if (page.length === 0) return copied;
    after = page[page.length - 1]?._id;
    const there = new Set((await target.find({ _id: { $in: page.map((d) => d._id) } }, { projection: { _id: 1 } })).map((d) => d._id));
    // a marker found in the old store (copied there from another chain store) means nothing for this move
    const missing = page.filter((d) => !there.has(d._id) && !(name === 'audit_meta' && d._id === MOVED_MARKER));
    if (missing.length > 0) await target.insertMany(missing);
    copied += missing.length;
  }
}

/** Removes a collection's documents a page at a time (a chain of a year: never one write of all of it). */
async function removeCollection(from: Store, name: string): Promise<number> {
  const source = from.collection(name);
  let removed = 0;
  for (;;) {
    const page = await source.find({}, { sort: { _id: 1 }, limit: PAGE, projection: { _id: 1 } });
    if (page.length === 0) return removed;
    removed += await source.deleteMany({ _id: { $in: page.map((d) => d._id) } });
  }
}
